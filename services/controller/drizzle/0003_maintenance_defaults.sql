-- The issue's defaults for a portable or standby generator, counted from the install (this migration):
-- oil and filter 100 h or 12 months, air filter 200 h or 24 months, spark plugs 300 h, battery 6 months.
INSERT INTO "controller"."maintenance_items"
  ("name", "interval_hours", "interval_months", "lead_hours", "lead_days", "last_done_at", "last_done_engine_ms", "created_at", "updated_at")
SELECT d.name, d.interval_hours, d.interval_months, d.lead_hours, d.lead_days, n.at,
  coalesce((SELECT "engine_ms" FROM "controller"."controller_state" WHERE "id" = 1), 0), n.at, n.at
FROM (VALUES
  (1, 'Oil and oil filter', 100::double precision, 12, 10::double precision, 14),
  (2, 'Air filter', 200::double precision, 24, 20::double precision, 14),
  (3, 'Spark plugs', 300::double precision, NULL::integer, 30::double precision, NULL::integer),
  (4, 'Battery check', NULL::double precision, 6, NULL::double precision, 14)
) AS d(ord, name, interval_hours, interval_months, lead_hours, lead_days)
CROSS JOIN (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS at) AS n
ORDER BY d.ord;
