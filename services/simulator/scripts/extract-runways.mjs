#!/usr/bin/env node
// Makes data/airports/runways.csv, the runway extract, from the full OurAirports airports.csv and
// runways.csv (public domain; provenance in data/airports/README.md).
// Usage: node scripts/extract-runways.mjs <full airports.csv> <full runways.csv> [output.csv]
// Runways are keyed in OurAirports by the airport's row id; the shipped airport table keys them by the
// code the airport filter chose (data/airports/README.md, "Filter used"), so the id is mapped to that
// code here with the same rule, and kept only where the shipped table has that code at the same place.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import geodesic from 'geographiclib-geodesic';
import { csvField, readTable } from './csv.mjs';

const serviceDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [airportsIn, runwaysIn] = process.argv.slice(2, 4);
if (!airportsIn || !runwaysIn) {
  console.error('usage: extract-runways.mjs <full airports.csv> <full runways.csv> [output.csv]');
  process.exit(2);
}
const output = resolve(process.argv[4] ?? resolve(serviceDir, 'data/airports/runways.csv'));
const shippedCsv = resolve(serviceDir, 'data/airports/airports.csv');

const TYPES = new Set(['large_airport', 'medium_airport', 'small_airport', 'seaplane_base']);
const FOUR = /^[A-Z]{4}$/;
const US_LID = /^K[A-Z0-9]{3}$/;

/** The code the airport filter gives an OurAirports row, or '' when it drops the row. */
function chosenCode(a) {
  if (!TYPES.has(a.type)) return '';
  if (FOUR.test(a.icao_code)) return a.icao_code;
  if (FOUR.test(a.gps_code)) return a.gps_code;
  if (a.iso_country === 'US' && US_LID.test(a.gps_code)) return a.gps_code;
  return '';
}

const shippedRows = readTable(readFileSync(shippedCsv, 'utf8'), ['icao', 'lat', 'lon']);
const shipped = new Map(shippedRows.map((a) => [a.icao, `${a.lat},${a.lon}`]));
const placeOf = new Map(shippedRows.map((a) => [a.icao, { lat: Number(a.lat), lon: Number(a.lon) }]));

// Upstream airport id -> shipped code. Coordinates are copied as they are into the extract, so the
// same text at the same code is the same airport (and the one dropped duplicate code stays out).
const codeById = new Map();
for (const a of readTable(readFileSync(airportsIn, 'utf8'), ['id', 'type', 'icao_code', 'gps_code'])) {
  const code = chosenCode(a);
  if (code && shipped.get(code) === `${a.latitude_deg},${a.longitude_deg}`) codeById.set(a.id, code);
}
if (codeById.size !== shipped.size) {
  throw new Error(`matched ${codeById.size} of ${shipped.size} shipped airports`);
}

const metres = (a, b) => geodesic.Geodesic.WGS84.Inverse(a.lat, a.lon, b.lat, b.lon).s12;
const endAt = (r, e) => ({ lat: Number(r[`${e}_latitude_deg`]), lon: Number(r[`${e}_longitude_deg`]) });
const endsApartM = (r) => metres(endAt(r, 'le'), endAt(r, 'he'));
// Source slips (a digit dropped from a coordinate, an end at another field) put thresholds hundreds of
// km away, or a 1 km strip 11 km long. The largest fields have thresholds under 8 km from their
// reference point, and thresholds are never further apart than the runway is long.
const FAR_FROM_AIRPORT_M = 10_000;
const misplaced = (r) => {
  const home = placeOf.get(r.icao);
  if (['le', 'he'].some((e) => metres(home, endAt(r, e)) > FAR_FROM_AIRPORT_M)) return true;
  const lengthM = Number(r.length_ft) * 0.3048;
  return r.length_ft !== '' && lengthM > 0 && endsApartM(r) > 1.5 * lengthM + 300;
};

const END = ['ident', 'latitude_deg', 'longitude_deg', 'elevation_ft', 'heading_degT'];
const COLUMNS = [
  'icao',
  'length_ft',
  'width_ft',
  'surface',
  ...END.map((c) => `le_${c}`),
  ...END.map((c) => `he_${c}`),
];
const counts = {
  upstream: 0,
  otherAirport: 0,
  closed: 0,
  noCoordinates: 0,
  oneEnd: 0,
  misplaced: 0,
  kept: 0,
};
const kept = [];
for (const r of readTable(readFileSync(runwaysIn, 'utf8'), ['airport_ref', 'closed', ...COLUMNS.slice(1)])) {
  counts.upstream++;
  const icao = codeById.get(r.airport_ref);
  if (!icao) counts.otherAirport++;
  else if (r.closed === '1') counts.closed++;
  else if (['le', 'he'].some((e) => r[`${e}_latitude_deg`] === '' || r[`${e}_longitude_deg`] === '')) {
    counts.noCoordinates++;
  } else if (endsApartM(r) < 1) {
    // Both ends given at one point: there is no line to line up on.
    counts.oneEnd++;
  } else if (misplaced({ ...r, icao })) {
    counts.misplaced++;
  } else {
    counts.kept++;
    kept.push({ ...r, icao });
  }
}
// By code, then the longest runway first (a name shared by two surfaces resolves to the longer).
kept.sort(
  (x, y) =>
    (x.icao < y.icao ? -1 : x.icao > y.icao ? 1 : 0) ||
    Number(y.length_ft || 0) - Number(x.length_ft || 0) ||
    (x.le_ident < y.le_ident ? -1 : x.le_ident > y.le_ident ? 1 : 0),
);
const lines = [COLUMNS.join(','), ...kept.map((r) => COLUMNS.map((c) => csvField(r[c].trim())).join(','))];
writeFileSync(output, `${lines.join('\n')}\n`);
console.log(JSON.stringify(counts), `-> ${output}`);
