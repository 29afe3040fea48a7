import { ManualClock } from '@outpost/runtime/clock';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestNode } from '../service-helpers.js';

type Node = Awaited<ReturnType<typeof startTestNode>>;
/** The mock plugin reports its inputs every 10 ms on real time; the monitor polls on the node's clock. */
const reported = () => new Promise((r) => setTimeout(r, 40));

describe('running-feedback input (RUNNING_FEEDBACK_PIN)', () => {
  let n: Node | null = null;
  afterEach(async () => {
    await n?.stop();
    n = null;
  });

  it('is reported in the retained state once it has held for 1 s; chatter shorter than that is not', async () => {
    const clock = new ManualClock(Date.now());
    n = await startTestNode({ clock, config: { feedbackPin: 'GPIO5' } });
    expect(n.node.state().running_feedback).toBe(false);
    const published: (boolean | undefined)[] = [];
    n.node.onChange((s) => published.push(s.running_feedback));

    await n.api('POST', '/api/dev/running-feedback', { running: true });
    await reported();
    clock.advance(900);
    expect(n.node.state().running_feedback).toBe(false);
    clock.advance(100);
    expect(n.node.state().running_feedback).toBe(true);

    // The engine stumbles for half a second: not a stop.
    await n.api('POST', '/api/dev/running-feedback', { running: false });
    await reported();
    clock.advance(500);
    await n.api('POST', '/api/dev/running-feedback', { running: true });
    await reported();
    clock.advance(2000);
    expect(published).toEqual([true]);
    // Only reported: the relay is never touched by it.
    expect(n.node.isRelayOn).toBe(false);
  });

  it('a node without the input reports no running feedback at all', async () => {
    n = await startTestNode();
    expect(n.node.state()).not.toHaveProperty('running_feedback');
    expect((await n.api('POST', '/api/dev/running-feedback', { running: true })).status).toBe(404);
  });
});
