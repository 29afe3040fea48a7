CREATE TABLE "controller"."start_conditions" (
	"id" integer PRIMARY KEY NOT NULL,
	"config" jsonb NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "controller"."runs" ADD COLUMN "trigger_value" double precision;--> statement-breakpoint
ALTER TABLE "controller"."runs" ADD COLUMN "stop_value" double precision;