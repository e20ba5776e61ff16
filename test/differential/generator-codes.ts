/**
 * The differential test's arbitraries for what a device does without a token and with its own clock:
 * typed short codes, group check-ins, clock offsets, and moves to the edges of a type's hours (see
 * code-steps.ts). Kept apart from generator.ts, which adds them to its kinds and its setups.
 */
import fc from 'fast-check';
import { type CodeForm, type Step, TYPES } from './history.ts';

const index = fc.integer({ min: 0, max: 3 });
const at = { device: index, ticket: index, gate: index };

/** A device's clock off by seconds (most often) or minutes, either way; 0 sets it right again. */
const offset = fc.oneof(
  { arbitrary: fc.integer({ min: -90, max: 90 }), weight: 2 },
  { arbitrary: fc.constantFrom(-900, -600, -301, -120, 0, 120, 299, 600, 900), weight: 2 },
);

/** Each new kind of step, with its weight in a history. */
export function codeStepArbs(): Record<
  'codeIn' | 'groupIn' | 'skew' | 'edge',
  { arbitrary: fc.Arbitrary<Step>; weight: number }
> {
  return {
    codeIn: {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('codeIn' as const),
        offline: fc.boolean(),
        unknown: fc.oneof({ arbitrary: fc.constant(false), weight: 6 }, { arbitrary: fc.constant(true), weight: 1 }),
        ...at,
      }),
    },
    groupIn: {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('groupIn' as const),
        offline: fc.boolean(),
        mask: fc.integer({ min: 1, max: 7 }),
        ...at,
      }),
    },
    skew: { weight: 2, arbitrary: fc.record({ kind: fc.constant('skew' as const), device: index, seconds: offset }) },
    edge: {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('edge' as const),
        type: fc.constantFrom(...TYPES),
        side: fc.constantFrom('from' as const, 'until' as const),
        seconds: fc.integer({ min: -120, max: 120 }),
      }),
    },
  };
}

/** The setup's parts for these steps: keys that may search, one order for all tickets, how codes are typed. */
export const codeSetupArbs = () => ({
  search: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  grouped: fc.boolean(),
  codeForm: fc.constantFrom<CodeForm>('printed', 'lower', 'nodash', 'spaced'),
});
