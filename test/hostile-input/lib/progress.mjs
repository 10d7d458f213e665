// Hostile onProgress callbacks shared by the solver targets: each kind does one thing a user's
// callback may do in the middle of a run (throw, release, finalize, step or run again, read a
// field); a target adds kinds of its own with `extra`.

/** The kinds every run() with onProgress is fed. */
export const progressKinds = [
  'none',
  'counts',
  'throws',
  'calls release()',
  'calls finalize()',
  'calls step()',
  'calls run() again',
];

/**
 * The callback of `kind` on `object` (of `module`), recording into `seen` ({ count, errors,
 * nested, sum }). `again`: the options of the nested run(); `extra[kind](object)`: the target's
 * own kinds.
 */
export function hostileProgress(kind, object, module, seen, { again, extra = {} }) {
  if (kind === 'none') return undefined;
  return () => {
    seen.count++;
    if (kind === 'throws') throw new Error('hostile onProgress');
    if (kind === 'calls release()') object.release();
    if (kind === 'calls finalize()') module.finalize();
    if (kind === 'calls step()') {
      try {
        object.step(1);
      } catch (e) {
        seen.errors.push(e);
      }
    }
    if (kind === 'calls run() again') seen.nested = object.run(again).catch((e) => e);
    extra[kind]?.(object);
  };
}
