import fc from 'fast-check';
import { Counter, Histogram, Registry, type RegistryContentType } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import { SeriesCounter, SeriesHistogram } from './series-metrics.js';

// The series metrics must render exactly as prom-client's own Counter and Histogram do, in both
// exposition formats and as JSON: the same calls go to one of each, and the outputs are compared.

const BUCKETS = [0.005, 0.01, 0.1, 1, 10];
const QUEUES = ['widgets', 'gadgets', 'a b"c\\d'];

type Call = { queue: number; frozen: boolean; value: number };

const calls = fc.array(
  fc.record({
    queue: fc.integer({ min: 0, max: QUEUES.length - 1 }),
    frozen: fc.boolean(),
    value: fc.oneof(
      fc.constantFrom(0, 0.005, 0.01, 1, 10, 11),
      fc.double({ min: 0, max: 20, noNaN: true }),
    ),
  }),
  { maxLength: 60 },
);

function labelsOf(call: Call): Record<string, string> {
  const labels = { name: QUEUES[call.queue] as string, controller: 'c' };
  return call.frozen ? Object.freeze(labels) : labels;
}

async function rendered(
  registry: Registry<RegistryContentType>,
): Promise<[string, string, unknown]> {
  registry.setContentType(Registry.PROMETHEUS_CONTENT_TYPE);
  const text = await registry.metrics();
  const json = await registry.getMetricsAsJSON();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  const openMetrics = await registry.metrics();
  return [text, openMetrics, json];
}

describe('SeriesCounter and SeriesHistogram (against prom-client)', () => {
  it('render what prom-client renders for the same calls', async () => {
    await fc.assert(
      fc.asyncProperty(calls, async (sequence) => {
        const stock = new Registry<RegistryContentType>();
        const ours = new Registry<RegistryContentType>();
        const labelNames = ['name', 'controller'];
        const stockCounter = new Counter({
          name: 'adds_total',
          help: 'h',
          labelNames,
          registers: [stock],
        });
        const stockHistogram = new Histogram({
          name: 'duration_seconds',
          help: 'h',
          labelNames,
          buckets: BUCKETS,
          registers: [stock],
        });
        const counter = new SeriesCounter('adds_total', 'h', labelNames, ours);
        const histogram = new SeriesHistogram('duration_seconds', 'h', labelNames, BUCKETS, ours);
        for (const call of sequence) {
          stockCounter.inc(labelsOf(call), call.value);
          counter.inc(labelsOf(call), call.value);
          stockHistogram.observe(labelsOf(call), call.value);
          histogram.observe(labelsOf(call), call.value);
        }
        expect(await rendered(ours)).toEqual(await rendered(stock));
        stock.resetMetrics();
        ours.resetMetrics();
        expect(await rendered(ours)).toEqual(await rendered(stock));
      }),
    );
  });

  it('render a metric without labels as prom-client does before and after a call', async () => {
    const stock = new Registry<RegistryContentType>();
    const ours = new Registry<RegistryContentType>();
    const stockCounter = new Counter({
      name: 'c_total',
      help: 'h',
      registers: [stock],
    });
    new Histogram({
      name: 'h_seconds',
      help: 'h',
      buckets: BUCKETS,
      registers: [stock],
    });
    const counter = new SeriesCounter('c_total', 'h', [], ours);
    new SeriesHistogram('h_seconds', 'h', [], BUCKETS, ours);
    expect(await rendered(ours)).toEqual(await rendered(stock));
    stockCounter.inc({}, 2);
    counter.inc({}, 2);
    expect(await rendered(ours)).toEqual(await rendered(stock));
  });

  it('refuse what prom-client refuses, with a typed error', () => {
    const registry = new Registry<RegistryContentType>();
    const counter = new SeriesCounter('c_total', 'h', ['name'], registry);
    const histogram = new SeriesHistogram('h_seconds', 'h', ['name'], BUCKETS, registry);
    expect(() => counter.inc({ other: 'x' })).toThrow(RuntimeError);
    expect(() => counter.inc({ name: 'x' }, -1)).toThrow(/only goes up/);
    expect(() => histogram.observe({ name: 'x' }, Number.NaN)).toThrow(RuntimeError);
    expect(() => new SeriesCounter('bad name', 'h', [], registry)).toThrow(/invalid metric name/);
    expect(() => new SeriesHistogram('h2', 'h', ['le'], BUCKETS, registry)).toThrow(/reserved/);
    // The registry refuses a second metric of the same name, as for its own.
    expect(() => new SeriesCounter('c_total', 'h', [], registry)).toThrow(
      /already been registered/,
    );
  });
});
