export { ApiError, type ApiOptions, apiFetch, errorText } from './api.js';
export { AppShell, Banner, Card, CheckField, ConnBadge, Flag, Status } from './components/common.js';
export {
  SIMULATOR_STATUS_MEANING,
  STATUS_TONES,
  type StatusMeaning,
  simulatorCountsOnline,
  type Tone,
  toneClass,
  toneOf,
} from './status.js';
export { LoginForm, type LoginFormProps } from './components/login-form.js';
export { GeoMap, type GeoMapProps, type MapLine, type MapPoint } from './components/geo-map.js';
export { type Basemap, landPath, loadBasemap } from './basemap/index.js';
export type { GeoJSONSource, Map as MapLibreMap, Marker } from 'maplibre-gl';
export { type MapConfig, mapSetup, maplibregl } from './map/setup.js';
export { baseStyle, MAP_COLOURS, WATER_LAYERS } from './map/style.js';
export { type MapHost, useMapLibre } from './map/use-map.js';
export { type Column, SortTable, type SortState, sortRows } from './components/sort-table.js';
export { formatAge, formatDuration, formatNumber } from './format.js';
export { fitZoom, formatLat, formatLon, gridLines, gridStep, project, unproject } from './geo.js';
export { useDebounced, useLive, useOnline, useTick } from './hooks.js';
export {
  connectLive,
  type LiveConnection,
  type LiveMessage,
  type LiveOptions,
  type LiveState,
  wsUrl,
} from './live.js';
