// Admission's counters from a service's /metrics (docs/operations.md "Overload"), and the settings that turn it off.

/** The environment that turns admission by the pool off: what "admission off" means in the overload leg's closed loops. */
export const ADMISSION_OFF = { ADMISSION_QUEUE_TARGET_MS: "0", ADMISSION_NEW_POOL_WAIT_MS: "0", ADMISSION_STARTED_POOL_WAIT_MS: "0" };

/** Refusals by class (503 OVERLOADED) and intervals the pool's queue stood, so far. */
export async function admissionCounters(baseUrl) {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const read = (name) => Number(text.split("\n").find((line) => line.startsWith(name))?.split(" ").pop() ?? NaN);
  return { refusedNew: read('admission_refused_total{class="new"}'), refusedStarted: read('admission_refused_total{class="started"}'), standingIntervals: read("admission_standing_intervals_total") };
}

/** The counters' change between two readings. */
export function admissionDelta(before, after) {
  return Object.fromEntries(Object.entries(after).map(([key, value]) => [key, value - (before[key] ?? 0)]));
}
