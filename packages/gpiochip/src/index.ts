export {
  findHeaderChip,
  GpioUnavailableError,
  HEADER_LABELS,
  type HeaderChip,
  hasGpioChipDevice,
  type LineInfo,
  lineInfo,
} from './chip.js';
export type { Bias, LineSettings } from './lines.js';
export { type GpioChipOptions, GpioChipIO, type LineOptions } from './plugin.js';
export { pinOffset } from './pins.js';
export { type GpiodTool, systemTools, type ToolProcess, type ToolRunner } from './tools.js';
export { type PinUse, validatePins } from './validate.js';
