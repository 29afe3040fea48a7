-- A read-only login for Grafana's run-history dashboard. Run once, as the role that owns the Outpost
-- schemas, after the controller and the notifier have started once against the database (their
-- migrations create the tables granted below):
--   psql "$DATABASE_URL" -v grafana_password='a-long-random-password' -f infra/postgres/grafana-readonly.sql
-- Running it again is harmless (it also resets the password).
\set ON_ERROR_STOP on

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'grafana_reader') THEN
    CREATE ROLE grafana_reader LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION;
  END IF;
END
$$;
ALTER ROLE grafana_reader WITH PASSWORD :'grafana_password';
-- Every transaction of this role is read-only, whatever the client asks for, and bounded in time.
ALTER ROLE grafana_reader SET default_transaction_read_only = on;
ALTER ROLE grafana_reader SET statement_timeout = '30s';

GRANT CONNECT ON DATABASE :"DBNAME" TO grafana_reader;
REVOKE CREATE ON SCHEMA public FROM grafana_reader;
GRANT USAGE ON SCHEMA controller, notifier TO grafana_reader;

-- Named tables only: users (password hashes), revoked_tokens, webhooks (signing secrets), outbox and
-- the notifier's channels (bot tokens, SMTP passwords) stay unreadable.
GRANT SELECT ON
  controller.runs,
  controller.controller_state,
  controller.settings,
  controller.schedules,
  controller.exercise_schedule,
  controller.audit_log,
  controller.webhook_deliveries
TO grafana_reader;
GRANT SELECT ON notifier.deliveries TO grafana_reader;
