CREATE SCHEMA IF NOT EXISTS "notifier";
--> statement-breakpoint
CREATE TABLE "notifier"."channels" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"channel_type" text NOT NULL,
	"config" jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifier"."deliveries" (
	"id" serial PRIMARY KEY NOT NULL,
	"notification_id" text NOT NULL,
	"source" text NOT NULL,
	"event_id" text,
	"channel_id" integer,
	"channel_name" text NOT NULL,
	"channel_type" text NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"attempt" integer NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifier"."event_settings" (
	"event" text PRIMARY KEY NOT NULL,
	"enabled" boolean NOT NULL,
	"channel_ids" jsonb NOT NULL,
	"group_ids" jsonb NOT NULL,
	"title_template" text NOT NULL,
	"body_template" text NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifier"."groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"channel_ids" jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifier"."pending_retries" (
	"id" serial PRIMARY KEY NOT NULL,
	"notification_id" text NOT NULL,
	"source" text NOT NULL,
	"event_id" text,
	"channel_id" integer NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"next_attempt" integer NOT NULL,
	"due_at" bigint NOT NULL,
	"context" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifier"."processed_events" (
	"event_id" text PRIMARY KEY NOT NULL,
	"event" text NOT NULL,
	"received_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "deliveries_created_idx" ON "notifier"."deliveries" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "deliveries_notification_idx" ON "notifier"."deliveries" USING btree ("notification_id");--> statement-breakpoint
CREATE INDEX "processed_events_received_idx" ON "notifier"."processed_events" USING btree ("received_at");