CREATE SCHEMA IF NOT EXISTS "controller";
--> statement-breakpoint
CREATE TABLE "controller"."audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" bigint NOT NULL,
	"who" text NOT NULL,
	"source" text NOT NULL,
	"action" text NOT NULL,
	"details" jsonb
);
--> statement-breakpoint
CREATE TABLE "controller"."controller_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"generator_running" boolean NOT NULL,
	"run_trigger" text NOT NULL,
	"generator_start_time" bigint,
	"current_run_id" integer,
	"slave_relay_armed" boolean NOT NULL,
	"automation_armed" boolean NOT NULL,
	"manual_disarm_active" boolean NOT NULL,
	"slave_connection_status" text NOT NULL,
	"missed_heartbeat_count" integer NOT NULL,
	"slave_physical_safety_engaged" boolean NOT NULL,
	"quiet_override_active" boolean NOT NULL,
	"quiet_override_expires_at" bigint,
	"override_type" text,
	"override_since" bigint,
	"lockout_active" boolean NOT NULL,
	"cooldown_until" bigint,
	"scheduled_stop_at" bigint,
	"scheduled_stop_reason" text,
	"fuel_reset_at" bigint,
	"last_alive_at" bigint,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "controller"."exercise_schedule" (
	"id" integer PRIMARY KEY NOT NULL,
	"enabled" boolean NOT NULL,
	"frequency_days" integer NOT NULL,
	"start_time" text NOT NULL,
	"duration_minutes" integer NOT NULL,
	"next_exercise_at" bigint,
	"last_run_at" bigint,
	"last_result" text
);
--> statement-breakpoint
CREATE TABLE "controller"."outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"event" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" bigint NOT NULL,
	"published_at" bigint,
	"fanned_out_at" bigint,
	CONSTRAINT "outbox_event_id_unique" UNIQUE("event_id")
);
--> statement-breakpoint
CREATE TABLE "controller"."revoked_tokens" (
	"jti" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "controller"."runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"start_time" bigint NOT NULL,
	"stop_time" bigint,
	"duration_seconds" integer,
	"trigger_type" text NOT NULL,
	"stop_reason" text,
	"notes" text,
	"stop_note" text,
	"fuel_type_at_run" text,
	"load_at_run" integer,
	"gph_at_run" double precision,
	"estimated_fuel_used" double precision,
	"scheduled_run_id" integer
);
--> statement-breakpoint
CREATE TABLE "controller"."schedules" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"days_of_week" jsonb NOT NULL,
	"start_time" text NOT NULL,
	"duration_minutes" integer NOT NULL,
	"enabled" boolean NOT NULL,
	"last_run_at" bigint,
	"last_result" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "controller"."settings" (
	"id" integer PRIMARY KEY NOT NULL,
	"runtime_limits_enabled" boolean NOT NULL,
	"max_run_minutes" integer NOT NULL,
	"cooldown_minutes" integer NOT NULL,
	"lockout_on_max_runtime" boolean NOT NULL,
	"fuel_type" text NOT NULL,
	"expected_load" integer NOT NULL,
	"gph_at_50" double precision NOT NULL,
	"gph_at_100" double precision NOT NULL,
	"boot_arming_policy" text NOT NULL,
	"bms_debounce_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "controller"."users" (
	"id" serial PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"password_changed_at" bigint NOT NULL,
	CONSTRAINT "users_username_unique" UNIQUE("username")
);
--> statement-breakpoint
CREATE TABLE "controller"."webhook_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"webhook_id" integer NOT NULL,
	"outbox_id" bigint NOT NULL,
	"event" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer NOT NULL,
	"next_attempt_at" bigint,
	"last_status_code" integer,
	"last_error" text,
	"delivered_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "controller"."webhooks" (
	"id" serial PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"secret" text NOT NULL,
	"events" jsonb NOT NULL,
	"enabled" boolean NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "controller"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "controller"."webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "controller"."audit_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "outbox_unpublished_idx" ON "controller"."outbox" USING btree ("id") WHERE "controller"."outbox"."published_at" is null;--> statement-breakpoint
CREATE INDEX "runs_start_time_idx" ON "controller"."runs" USING btree ("start_time");--> statement-breakpoint
CREATE INDEX "runs_open_idx" ON "controller"."runs" USING btree ("stop_time") WHERE "controller"."runs"."stop_time" is null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "controller"."webhook_deliveries" USING btree ("status","next_attempt_at");