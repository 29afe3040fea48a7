ALTER TABLE "controller"."exercise_schedule" ADD COLUMN "until_battery_full" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "controller"."exercise_schedule" ADD COLUMN "battery_full_soc" double precision DEFAULT 100 NOT NULL;--> statement-breakpoint
ALTER TABLE "controller"."exercise_schedule" ADD COLUMN "max_duration_minutes" integer DEFAULT 240 NOT NULL;