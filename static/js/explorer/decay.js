/* Edge strength over time, S(t) = S0·e^(−λt) with t in days since the last touch (SPEC §5.4):
   the formula of memory.core.decay.strength_at. No constant is written here: λ per stability,
   the dormancy threshold and the exponent's floor arrive as `constants`, which the page carries
   from memory.core.decay.client_constants() in #explorer[data-decay]. Imports nothing, so
   tests/memory/core/test_decay_client.py runs it in node against the Python on a table of
   inputs. Part of the memory explorer: see main.js. */

export const DAY_MS = 86400000;

// λ per day for a stability (an unknown one decays as "stable", as the API never sends one).
export function rate(constants, stability) {
  const table = constants.lambda;
  return table[stability] === undefined ? table.stable : table[stability];
}

export function strengthAt(constants, s0, stability, touchedMs, atMs) {
  const days = Math.max(0, (atMs - touchedMs) / DAY_MS);
  return s0 * Math.exp(Math.max(constants.minExponent, -rate(constants, stability) * days));
}
