/**
 * A Pi with an input left unconfigured never acts on it and, unless told, nobody notices: a site with no
 * BMS pin never starts the generator by itself. These lines go to the log, /health, the console and Home
 * Assistant. Mock GPIO (development) is exempt: its inputs come from the dev endpoints.
 */
export const NO_BMS_PIN = 'automatic start disabled: no input pin (BMS_GPIO_PIN)';

export interface InputPins {
  gpio: 'mock' | 'gpiochip' | 'raspi';
  bmsPin: number | undefined;
  hoaEnabled: boolean;
  hoaQuietPin: number | undefined;
  hoaRunPin: number | undefined;
}

export function inputWarnings(p: InputPins): string[] {
  if (p.gpio === 'mock') return [];
  const out: string[] = [];
  if (p.bmsPin === undefined) out.push(NO_BMS_PIN);
  if (p.hoaEnabled) {
    const missing = [
      ...(p.hoaQuietPin === undefined ? ['HOA_GPIO_QUIET'] : []),
      ...(p.hoaRunPin === undefined ? ['HOA_GPIO_RUN'] : []),
    ];
    if (missing.length > 0) out.push(`HOA switch disabled: no input pin (${missing.join(', ')})`);
  }
  return out;
}
