/** The `peclet` program: its commands, their flags and help, and the exit status of a run. */
import { createRequire } from 'node:module';
import { Command, CommanderError, Option } from 'commander';
import { extractCommand } from './commands/extract.js';
import { permeabilityCommand } from './commands/permeability.js';
import { tessellateCommand } from './commands/tessellate.js';
import { type Context, envFlag } from './context.js';
import { describeError, ExitStatus, UsageError } from './errors.js';
import { wasInterrupted } from './signals.js';

// @peclet/pnm's conduit models, its default (chosen by measurement against direct simulation) first.
const CONDUCTANCES = [
  'pyramids-and-cuboids',
  'cones-and-cylinders',
  'spheres-and-cylinders',
  'shape-factor',
  'hagen-poiseuille',
];

const version = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

const exitStatusHelp = `
Exit status:
  0    success
  1    a computation or a file failed (peclet: <message> on stderr;
       PECLET_DEBUG=1 adds the stack)
  2    a bad command line: an unknown command or flag, a missing or malformed
       value, a value the computation refuses (such as a --shape that does not
       match the file's size)
  130  interrupted by Ctrl-C: every module is finalized, then the process dies
       by SIGINT, which a shell reports as 130 (SIGTERM 143, SIGHUP 129)

Environment:
  PECLET_DEBUG=1           stacks of errors, and one line per stage, on stderr
  PECLET_TEARDOWN_TRACE=1  every release and finalize of native objects, on stderr

Progress bars are drawn on stderr only when it is a terminal. Besides errors,
stderr carries warnings about likely mistakes (a voxel size outside 1 nm - 1 mm,
a porosity outside 0.01 - 0.9, a --shape whose rows do not line up, a
permeability above 1000 D) and notes on how an image was read, each a line
starting 'peclet: warning:' or 'peclet: note:'; --quiet silences them, and
--json lists the warnings in its "warnings" array.`;

const programExamples = `
Examples:
  $ peclet permeability berea.raw --shape 200,200,200 --voxel-size 5.345e-6
  $ peclet permeability rock.npy --voxel-size 2e-6 --axis z --network --json
  $ peclet extract berea.raw --shape 200,200,200 --voxel-size 5.345e-6 --out berea.vtp --statoil out/berea
  $ peclet tessellate points.npy --box 0,0,0,1,1,1 --periodic all --json
${exitStatusHelp}`;

const imageHelp = `
Images: .raw/.bin (headerless, C order, needs --shape), .npy/.npz, .tif/.tiff
stacks (pages along x). Non-zero voxels are solid, except in a boolean
.npy/.npz, which is read as PoreSpy and OpenPNM save their images: True = pore
(a note says so). --solid zero|nonzero, --pore-value or --solid-value make the
rule explicit, e.g. --pore-value 0 for a labelled image whose phase 0 is pore.`;

/** The options every image command shares. */
function addImageOptions(command: Command): Command {
  return command
    .option('--voxel-size <metres>', 'edge of one voxel in metres, e.g. 5.345e-6 (required)')
    .option('--shape <n0,n1,n2>', 'voxels along x, y, z (raw images only, required there)')
    .addOption(
      new Option('--dtype <type>', 'element type of a raw image (default: uint8)').choices([
        'uint8',
        'int8',
        'uint16',
        'int16',
        'uint32',
        'int32',
        'float32',
        'float64',
      ]),
    )
    .addOption(new Option('--byte-order <order>', 'of a raw image (default: little)').choices(['little', 'big']))
    .addOption(
      new Option('--solid <rule>', 'which voxels are solid (default: nonzero; boolean .npy/.npz: True = pore)').choices(
        ['nonzero', 'zero'],
      ),
    )
    .option('--pore-value <v>', 'voxels holding exactly this value are pore, all others solid')
    .option('--solid-value <v>', 'voxels holding exactly this value are solid, all others pore')
    .option('--key <name>', 'the array to read from an .npz file')
    .option('-q, --quiet', 'no warnings or notes on stderr (--json still lists the warnings)');
}

/** Runs a command's action with its context; progress only where stderr is a terminal. */
function context(base: Omit<Context, 'progress'>, flags: { progress?: boolean }): Context {
  return { ...base, progress: flags.progress !== false && process.stderr.isTTY === true };
}

/**
 * The `peclet` program. Errors are thrown, never exit the process (`exitOverride`): {@link main}
 * turns them into exit statuses.
 *
 * @example
 * ```ts
 * const program = createProgram({ print: console.log, debug: () => {} });
 * await program.parseAsync(['tessellate', 'points.npy', '--box', '0,0,0,1,1,1'], { from: 'user' });
 * ```
 */
export function createProgram(base: Omit<Context, 'progress'>): Command {
  const program = new Command('peclet')
    .description(
      'Porous-media computations on image files: permeability by lattice Boltzmann and pore networks, pore-network extraction, Voronoi/Laguerre tessellation.',
    )
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'print this help')
    .helpCommand(false)
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'peclet: ')) })
    .showHelpAfterError("(run 'peclet --help' for usage)")
    .addHelpText('after', programExamples);

  const permeability = program
    .command('permeability')
    .summary('permeability of a voxel image: lattice Boltzmann, and its pore network')
    .description(
      'The permeability of a voxel image along an axis by lattice Boltzmann (D3Q19 TRT, creeping flow to steady state); with --network also that of its pore network.',
    )
    .argument('<image>', 'the image file (.raw, .bin, .npy, .npz, .tif, .tiff)');
  addImageOptions(permeability)
    .addOption(new Option('--axis <axis>', 'flow axis').choices(['x', 'y', 'z']).default('x'))
    .addOption(
      new Option(
        '--drive <drive>',
        'uniform body force, or fixed inlet and outlet pressures (default: body-force)',
      ).choices(['body-force', 'pressure']),
    )
    .addOption(
      new Option('--sides <sides>', 'faces parallel to the flow: walls, or periodic (default: sealed)').choices([
        'sealed',
        'periodic',
      ]),
    )
    .option('--buffer <layers>', 'open voxel layers added before and after the sample along the axis (default: 4)')
    .option('--tolerance <t>', 'relative change at which the flow counts as steady (default: 1e-6)')
    .option('--max-steps <n>', 'most lattice steps (default: 100000)')
    .addOption(
      new Option('--precision <p>', 'of the lattice: f32 halves memory and time (default: f64)').choices([
        'f64',
        'f32',
      ]),
    )
    .option('--threads <n>', 'threads to use (default: the CPUs this process may use)')
    .option('--out <file.vti>', 'write the flow field (solid, density, velocity) for ParaView')
    .option('--network', "also the pore network's permeability (SNOW extraction, Stokes flow)")
    .option(
      '--report <prefix>',
      'the one-page report: <prefix>.svg and <prefix>.png (default: <image name>-permeability in the current folder)',
    )
    .option('--no-report', 'no report')
    .addOption(
      new Option('--conductance <model>', 'conduit model of the network (with --network)')
        .choices(CONDUCTANCES)
        .default(CONDUCTANCES[0]),
    )
    .option('--json', 'print one JSON object instead of the summary')
    .option('--no-progress', 'no progress bar, even on a terminal')
    .showHelpAfterError("(run 'peclet permeability --help' for usage)")
    .addHelpText(
      'after',
      `
Examples:
  $ peclet permeability berea.raw --shape 200,200,200 --voxel-size 5.345e-6
  $ peclet permeability berea.raw --shape 200,200,200 --voxel-size 5.345e-6 --precision f32 --tolerance 1e-4 --network
  $ peclet permeability rock.tif --voxel-size 2e-6 --axis z --out flow.vti --json | jq .direct.millidarcy
  $ peclet permeability blobs.npy --voxel-size 1e-6 --solid zero --sides periodic
${imageHelp}

The summary gives the porosity, the permeability in m² and in D or mD, the
steps and whether the flow converged; --json the same as one object
(permeability in m², millidarcy, darcy). Exit status: 0, 1, 2 or 130, as
'peclet --help' explains.`,
    )
    .action((image: string, flags, command: Command) =>
      permeabilityCommand(image, flags, context(base, command.opts())),
    );

  const extract = program
    .command('extract')
    .summary('pore network of a voxel image, to .vtp and Statoil files')
    .description(
      'The pore network of a voxel image (SNOW: distance transform, peaks, watershed): its pores, throats and permeability, written for ParaView (.vtp) or pnflow/OpenPNM (Statoil).',
    )
    .argument('<image>', 'the image file (.raw, .bin, .npy, .npz, .tif, .tiff)');
  addImageOptions(extract)
    .addOption(new Option('--axis <axis>', "axis of the network's permeability").choices(['x', 'y', 'z']).default('x'))
    .option('--boundaries <axes>', 'faces that get boundary pores: all, none, or axes such as x,z (default: --axis)')
    .option('--sigma <voxels>', 'Gaussian smoothing of the distance transform; 0: none (default: 0.4)')
    .option('--r-max <voxels>', 'radius of the maximum filter that finds peaks (default: 4)')
    .addOption(
      new Option(
        '--watershed <algorithm>',
        "basins: parallel, the same on any thread count; priority-flood: scikit-image's order (snow2's regions), one thread",
      )
        .choices(['basins', 'priority-flood'])
        .default('basins'),
    )
    .addOption(
      new Option('--conductance <model>', 'conduit model of the permeability')
        .choices(CONDUCTANCES)
        .default(CONDUCTANCES[0]),
    )
    .option('--threads <n>', 'threads to use (default: the CPUs this process may use)')
    .option('--out <file.vtp>', 'write the network as VTK PolyData (pores as points, throats as lines)')
    .option('--statoil <prefix>', 'write <prefix>_node1.dat, _node2.dat, _link1.dat, _link2.dat')
    .option(
      '--report <prefix>',
      'the one-page report: <prefix>.svg and <prefix>.png (default: <image name>-network in the current folder)',
    )
    .option('--no-report', 'no report')
    .option('--json', 'print one JSON object instead of the summary')
    .option('--no-progress', 'no progress bar, even on a terminal')
    .showHelpAfterError("(run 'peclet extract --help' for usage)")
    .addHelpText(
      'after',
      `
Examples:
  $ peclet extract berea.raw --shape 200,200,200 --voxel-size 5.345e-6 --out berea.vtp
  $ peclet extract berea.raw --shape 200,200,200 --voxel-size 5.345e-6 --statoil out/berea --json
  $ peclet extract blobs.npy --voxel-size 1e-6 --solid zero --boundaries all --axis y
${imageHelp}

The network's permeability is along --axis and needs boundary pores on both
faces of that axis (the default); without them it is reported as none.
Exit status: 0, 1, 2 or 130, as 'peclet --help' explains.`,
    )
    .action((image: string, flags, command: Command) => extractCommand(image, flags, context(base, command.opts())));

  program
    .command('tessellate')
    .summary('Voronoi or Laguerre cells of points in a box')
    .description(
      'The Voronoi cells of points in a box, or with --radii the Laguerre (radical) cells of spheres: cell count, volumes against the box, neighbours.',
    )
    .argument('<points.npy>', 'an (n, 3) float64 or float32 .npy array of coordinates')
    .option('--box <xmin,ymin,zmin,xmax,ymax,zmax>', 'the container (required)')
    .option('--radii <radii.npy>', 'an (n,) .npy array of sphere radii: Laguerre cells')
    .option('--periodic [axes]', 'periodic axes: all (alone: all), none, or axes such as x,y')
    .option('--threads <n>', 'threads to use (default: the CPUs this process may use)')
    .option(
      '--out <cells.json|cells.vtp>',
      'write the cells: .json {"volumes": [...], "faces": [...], "centroids": [...]}, or .vtp their faces as polygons for ParaView',
    )
    .option('--json', 'print one JSON object instead of the summary')
    .showHelpAfterError("(run 'peclet tessellate --help' for usage)")
    .addHelpText(
      'after',
      `
Examples:
  $ peclet tessellate points.npy --box 0,0,0,1,1,1
  $ peclet tessellate centres.npy --radii radii.npy --box 0,0,0,4e-3,4e-3,8e-3 --periodic x,y --json
  $ peclet tessellate points.npy --box 0,0,0,1,1,1 --periodic all --out cells.json
  $ peclet tessellate points.npy --box 0,0,0,1,1,1 --out cells.vtp

On walled axes every point must lie inside the box; on periodic axes points
are wrapped. Exit status: 0, 1, 2 or 130, as 'peclet --help' explains.`,
    )
    .action((points: string, flags) => tessellateCommand(points, flags, context(base, {})));

  return program;
}

/**
 * Runs the `peclet` command line `argv` (without the node and script paths) and resolves with
 * its exit status ({@link ExitStatus}); never rejects and never exits the process. Errors are
 * printed on stderr as `peclet: <message>`. Signal handling is the caller's: the executable
 * installs `handleSignals()` of @peclet/core first.
 *
 * @example
 * ```ts
 * import { main } from '@peclet/cli';
 * process.exitCode = await main(['extract', 'berea.raw', '--shape', '200,200,200', '--voxel-size', '5.345e-6']);
 * ```
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const debugging = envFlag('PECLET_DEBUG');
  const base: Omit<Context, 'progress'> = {
    print: (text) => {
      process.stdout.write(`${text}\n`);
    },
    debug: debugging ? (line) => process.stderr.write(`peclet: debug: ${line}\n`) : () => {},
  };
  try {
    await createProgram(base).parseAsync([...argv], { from: 'user' });
    return ExitStatus.success;
  } catch (error) {
    // The process is dying by a signal: what the cancelled computation rejects with is noise.
    if (wasInterrupted()) return ExitStatus.interrupted;
    // Commander has printed its message (or the help) already.
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitStatus.success : ExitStatus.usage;
    if (error instanceof UsageError) {
      const help = error.command === undefined ? 'peclet --help' : `peclet ${error.command} --help`;
      process.stderr.write(`peclet: ${error.message}\n(run '${help}' for usage)\n`);
      if (debugging && error.cause instanceof Error) process.stderr.write(`${error.cause.stack}\n`);
      return ExitStatus.usage;
    }
    process.stderr.write(`peclet: ${describeError(error)}\n`);
    if (debugging && error instanceof Error && error.stack !== undefined) process.stderr.write(`${error.stack}\n`);
    return ExitStatus.failure;
  }
}
