/** Header pins are named `GPIOn` (BCM numbering); the offset on the header chip is that same n. */
const GPIO_NAME = /^GPIO(\d{1,2})$/;

export function pinOffset(pin: number | string): number {
  if (typeof pin === 'number') return pin;
  if (/^\d+$/.test(pin)) return Number(pin);
  const m = GPIO_NAME.exec(pin);
  if (!m?.[1]) throw new Error(`invalid pin "${pin}": expected GPIOn (BCM numbering), e.g. GPIO16`);
  return Number(m[1]);
}
