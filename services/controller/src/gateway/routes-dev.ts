import { createRoute, z } from '@hono/zod-openapi';
import { generator, HoaPosition, health } from '@outpost/contracts';
import { contactsFor, hoaFromContacts } from '../inputs/gpio-port.js';
import type { MockGpio } from '../inputs/mock-gpio.js';
import type { ControllerService } from '../controller-service.js';
import { actorOf, auditor, errorResponses, router } from './context.js';
import { body, json } from './openapi.js';
import { sendWebhookTest, webhookTestRoute } from './routes-webhooks.js';

const tags = ['development'];

const GpioState = z.object({
  bms_signal: z.boolean(),
  hoa_quiet: z.boolean(),
  hoa_run: z.boolean(),
  hoa_position: HoaPosition,
});
const FeedbackLine = z.object({ running_feedback: z.boolean() });

/** /api/dev/*: present only with mock GPIO (not on the target board). */
export function devRoutes(svc: ControllerService, gpio: MockGpio) {
  const r = router();
  const audit = auditor(svc);
  const gpioState = () => {
    const v = gpio.snapshot();
    return {
      bms_signal: v.bms,
      hoa_quiet: v.hoa_quiet,
      hoa_run: v.hoa_run,
      hoa_position: hoaFromContacts(v.hoa_quiet, v.hoa_run),
    };
  };
  const change = async (c: Parameters<typeof actorOf>[0], action: string, apply: () => void) => {
    apply();
    await svc.inputs.settled();
    await audit(c, action, gpioState());
    return c.json(gpioState(), 200);
  };

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/dev/status',
      tags,
      responses: {
        200: json(
          z.object({
            dev_mode: z.boolean(),
            gpio_mode: z.string(),
            gpio: GpioState,
            generator: generator.GeneratorState,
          }),
        ),
        ...errorResponses([401]),
      },
    }),
    (c) =>
      c.json({ dev_mode: true, gpio_mode: 'mock', gpio: gpioState(), generator: svc.controller.view() }, 200),
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/api/dev/gpio/state',
      tags,
      responses: { 200: json(GpioState), ...errorResponses([401]) },
    }),
    (c) => c.json(gpioState(), 200),
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/dev/gpio/bms-signal',
      tags,
      request: body(generator.DevBmsSignalRequest),
      responses: { 200: json(GpioState), ...errorResponses([400, 401, 422]) },
    }),
    async (c) => {
      const { active } = c.req.valid('json');
      return change(c, 'dev.bms_signal', () => gpio.set('bms', active));
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/dev/gpio/toggle',
      tags,
      responses: { 200: json(GpioState), ...errorResponses([401]) },
    }),
    async (c) => change(c, 'dev.bms_toggle', () => gpio.set('bms', !gpio.read('bms'))),
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/dev/gpio/reset',
      tags,
      responses: { 200: json(GpioState), ...errorResponses([401]) },
    }),
    async (c) => change(c, 'dev.bms_reset', () => gpio.set('bms', false)),
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/dev/gpio/hoa',
      tags,
      request: body(generator.DevHoaRequest),
      responses: { 200: json(GpioState), ...errorResponses([400, 401, 422]) },
    }),
    async (c) => {
      const contacts = contactsFor(c.req.valid('json').position);
      return change(c, 'dev.hoa', () => {
        gpio.set('hoa_quiet', contacts.hoa_quiet);
        gpio.set('hoa_run', contacts.hoa_run);
      });
    },
  );

  r.openapi(
    createRoute({
      method: 'post',
      path: '/api/dev/gpio/running-feedback',
      tags,
      summary: 'The mock running-feedback line (the GPIO source, debounced like the real one)',
      request: body(health.RunningFeedbackRequest),
      responses: { 200: json(FeedbackLine), ...errorResponses([400, 401, 422]) },
    }),
    async (c) => {
      const { running } = c.req.valid('json');
      gpio.set('running_feedback', running);
      await svc.inputs.settled();
      const details = { running_feedback: running };
      await audit(c, 'dev.running_feedback', details);
      return c.json(details, 200);
    },
  );

  // The spec's development path; the same test is POST /api/webhooks/test in every mode.
  r.openapi(webhookTestRoute('/api/dev/webhook/test'), async (c) =>
    c.json(await sendWebhookTest(svc, actorOf(c), 'dev.webhook_test'), 200),
  );

  return r;
}
