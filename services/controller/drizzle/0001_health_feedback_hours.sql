ALTER TABLE "controller"."controller_state" ADD COLUMN "engine_ms" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "controller"."controller_state" ADD COLUMN "engine_counting_since" bigint;--> statement-breakpoint
ALTER TABLE "controller"."controller_state" ADD COLUMN "health_alarm" text;--> statement-breakpoint
ALTER TABLE "controller"."settings" ADD COLUMN "running_feedback_source" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "controller"."settings" ADD COLUMN "fail_to_start_policy" text DEFAULT 'drop_and_lockout' NOT NULL;