CREATE TABLE "controller"."exercise_reports" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" integer,
	"started_at" bigint NOT NULL,
	"confirmed" boolean,
	"confirm_seconds" integer,
	"planned_seconds" integer,
	"ran_seconds" integer NOT NULL,
	"full_duration" boolean NOT NULL,
	"stop_reason" text NOT NULL,
	"passed" boolean NOT NULL
);
--> statement-breakpoint
CREATE INDEX "exercise_reports_started_idx" ON "controller"."exercise_reports" USING btree ("started_at");