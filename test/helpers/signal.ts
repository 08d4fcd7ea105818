/**
 * A step between two concurrent tasks: one awaits `reached`, the other calls `give()`. For tests that
 * hold a transaction open while another one runs (the clinic lock, the rollups' counter slots).
 */
export function signal(): { reached: Promise<void>; give: () => void } {
  let give!: () => void;
  const reached = new Promise<void>((resolve) => {
    give = resolve;
  });
  return { reached, give };
}
