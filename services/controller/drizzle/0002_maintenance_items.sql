CREATE TABLE "controller"."maintenance_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"item_id" integer NOT NULL,
	"item_name" text NOT NULL,
	"done_at" bigint NOT NULL,
	"engine_ms" bigint NOT NULL,
	"who" text NOT NULL,
	"source" text NOT NULL,
	"note" text
);
--> statement-breakpoint
CREATE TABLE "controller"."maintenance_items" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"interval_hours" double precision,
	"interval_months" integer,
	"lead_hours" double precision,
	"lead_days" integer,
	"last_done_at" bigint NOT NULL,
	"last_done_engine_ms" bigint NOT NULL,
	"upcoming_notified" boolean DEFAULT false NOT NULL,
	"due_notified" boolean DEFAULT false NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "maintenance_history_item_idx" ON "controller"."maintenance_history" USING btree ("item_id","done_at");