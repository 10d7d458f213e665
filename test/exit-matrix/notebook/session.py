"""One notebook session on Deno's Jupyter kernel, driven headless.

    python3 session.py <case> <deno> <package-root> <scratch-dir> <steps.json>

Starts `deno jupyter --kernel` through jupyter_client's KernelManager with a
kernelspec of its own (a private JUPYTER_PATH under <scratch-dir>: nothing is
installed for the user), runs the steps of <case> that the test wrote to
<steps.json> (cells, from cells.mjs, and the kernel's ends: interrupt,
restart, shutdown) and prints one JSON object: for every kernel process of
the session (a restart makes two), how it ended, what its cells printed, its
stderr (the teardown trace) and the processes of its process group still
alive after it ended. The Node test judges that
(test/notebook.test.mjs); this file only drives and records.

Every wait is bounded: a cell that does not finish, a kernel that does not
start or does not end, is recorded as hung and the kernel is killed.
"""

import json
import os
import signal
import sys
import time

CELL_TIMEOUT_S = 30
START_TIMEOUT_S = 60
END_TIMEOUT_S = 30


def setup_jupyter(deno, scratch):
    """Private kernelspecs: `peclet-deno`, the one `deno jupyter --install` writes (interrupt by
    SIGINT), and `peclet-deno-message`, the same with `interrupt_mode: message` (interrupt by an
    `interrupt_request`, which Deno's kernel answers by terminating the running cell)."""
    for name in ('path', 'data', 'runtime', 'config'):
        os.makedirs(os.path.join(scratch, name), exist_ok=True)
    os.environ['JUPYTER_PATH'] = os.path.join(scratch, 'path')
    os.environ['JUPYTER_DATA_DIR'] = os.path.join(scratch, 'data')
    os.environ['JUPYTER_RUNTIME_DIR'] = os.path.join(scratch, 'runtime')
    os.environ['JUPYTER_CONFIG_DIR'] = os.path.join(scratch, 'config')
    os.environ['JUPYTER_PLATFORM_DIRS'] = '0'
    spec = {
        'argv': [deno, 'jupyter', '--kernel', '--conn', '{connection_file}'],
        'display_name': 'Deno',
        'language': 'typescript',
    }
    kernelspecs = {'peclet-deno': {}, 'peclet-deno-message': {'interrupt_mode': 'message'}}
    for name, extra in kernelspecs.items():
        spec_dir = os.path.join(scratch, 'path', 'kernels', name)
        os.makedirs(spec_dir, exist_ok=True)
        with open(os.path.join(spec_dir, 'kernel.json'), 'w') as f:
            json.dump({**spec, **extra}, f)


def group_members(pgid):
    """Live processes of process group `pgid` (the kernel leads its own)."""
    members = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat') as f:
                fields = f.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        if fields[0] != 'Z' and int(fields[2]) == pgid:
            members.append(int(entry))
    return members


def wait_for_end(process, seconds=END_TIMEOUT_S):
    """Waits at most `seconds` for `process` to end."""
    deadline = time.monotonic() + seconds
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)


class Life:
    """One kernel process: its output files and, once ended, its record."""

    def __init__(self, scratch, index):
        self.stdout_path = os.path.join(scratch, f'kernel-{index}.stdout')
        self.stderr_path = os.path.join(scratch, f'kernel-{index}.stderr')
        self.stdout_file = open(self.stdout_path, 'wb')
        self.stderr_file = open(self.stderr_path, 'wb')
        self.process = None
        self.cells = []
        self.printed = []
        self.hung = False
        self.record = None

    def started(self, km):
        self.process = km.provisioner.process
        self.pid = self.process.pid
        # For the test, which kills this group should the driver itself be killed.
        print(f'kernel-pid {self.pid}', file=sys.stderr, flush=True)

    def finish(self, how):
        """Waits for the process to end (killing it past the limit)."""
        wait_for_end(self.process)
        if self.process.poll() is None:
            self.hung = True
            self.process.kill()
            self.process.wait()
        # A process of its group still alive shortly after it ended is an orphan.
        time.sleep(0.2)
        orphans = group_members(self.pid)
        for pid in orphans:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self.stdout_file.close()
        self.stderr_file.close()
        code = self.process.returncode
        with open(self.stdout_path, errors='replace') as f:
            kernel_stdout = f.read()
        with open(self.stderr_path, errors='replace') as f:
            stderr = f.read()
        self.record = {
            'pid': self.pid,
            'how': how,
            'status': code if code >= 0 else None,
            'signal': signal.Signals(-code).name if code < 0 else None,
            'stdout': ''.join(self.printed) + kernel_stdout,
            'stderr': stderr,
            'hung': self.hung,
            'orphans': orphans,
            'cells': self.cells,
        }


def run_cell(kc, life, name, code, timeout=CELL_TIMEOUT_S, interrupt=None):
    """Executes one cell; records its status, output and time.

    Deno's kernel forwards what a cell prints on its own channel, so prints can
    reach iopub after the cell's reply and its `idle` status: each cell ends by
    printing a sentinel, and the cell is over once the reply and the sentinel
    (or, for a failing cell, the reply) have come.
    """
    started = time.monotonic()
    sentinel = f'cell-end {len(life.cells)} {name}'
    msg_id = kc.execute(f'{code}\nconsole.log({json.dumps(sentinel)});', store_history=True)
    deadline = started + timeout
    reply = None
    seen_sentinel = False
    outcome = {'cell': name}
    while True:
        if reply is not None and (seen_sentinel or outcome.get('status') != 'ok'):
            break
        if interrupt and not outcome.get('interrupted'):
            if time.monotonic() - started >= interrupt[1]:
                interrupt[0]()
                outcome['interrupted'] = True
        left = deadline - time.monotonic()
        if left <= 0:
            life.hung = True
            outcome['status'] = 'hung'
            outcome['error'] = f'cell {name} did not finish within {timeout} s'
            break
        try:
            msg = kc.get_iopub_msg(timeout=min(left, 0.05))
        except Exception:
            msg = None
        if msg is not None:
            content = msg['content']
            if msg['msg_type'] == 'stream':
                life.printed.append(content['text'])
                seen_sentinel = seen_sentinel or sentinel in content['text'].splitlines()
            elif msg['msg_type'] == 'error' and msg['parent_header'].get('msg_id') == msg_id:
                outcome['error'] = f"{content['ename']}: {content['evalue']}"
        if reply is None:
            try:
                msg = kc.get_shell_msg(timeout=0.01)
            except Exception:
                msg = None
            if msg is not None and msg['parent_header'].get('msg_id') == msg_id:
                reply = msg
                outcome['status'] = msg['content']['status']
                if msg['content']['status'] == 'error':
                    content = msg['content']
                    error = f"{content.get('ename')}: {content.get('evalue')}"
                    outcome.setdefault('error', error)
    outcome['seconds'] = round(time.monotonic() - started, 2)
    life.cells.append(outcome)
    return outcome.get('status') == 'ok'


def main():
    case_name, deno, package_root, scratch, steps_path = sys.argv[1:6]
    with open(steps_path) as f:
        plan = json.load(f)
    cells = plan['steps']
    setup_jupyter(deno, scratch)
    try:
        import jupyter_client
        from jupyter_client import KernelManager
    except ImportError as error:
        sys.exit(f'{error}: install python3-jupyter-client (bash scripts/system-deps.sh)')

    env = {
        **os.environ,
        'PECLET_TEARDOWN_TRACE': '1',
        'NO_COLOR': '1',
        'DENO_NO_UPDATE_CHECK': '1',
        'DENO_DIR': os.environ.get('DENO_DIR', os.path.join(scratch, 'deno-dir')),
    }
    message = plan.get('interrupt_mode') == 'message'
    km = KernelManager(kernel_name='peclet-deno-message' if message else 'peclet-deno')
    km.shutdown_wait_time = 10
    lives = [Life(scratch, 0)]
    def start(life):
        km.start_kernel(cwd=package_root, env=env,
                        stdout=life.stdout_file, stderr=life.stderr_file)
        life.started(km)

    start(lives[0])
    kc = km.client()
    kc.start_channels()
    session = {'case': case_name, 'jupyter_client': jupyter_client.__version__, 'steps': []}
    try:
        kc.wait_for_ready(timeout=START_TIMEOUT_S)
        for step in cells:
            life = lives[-1]
            kind = step['do']
            session['steps'].append(kind if kind != 'cell' else f"cell {step['name']}")
            if kind == 'cell':
                timeout = step.get('timeout', CELL_TIMEOUT_S)
                after = step.get('interruptAfter')
                interrupt = (km.interrupt_kernel, after) if after is not None else None
                ok = run_cell(kc, life, step['name'], step['code'], timeout, interrupt)
                if not ok and not (interrupt and life.cells[-1].get('status') == 'error'):
                    break
            elif kind == 'interrupt':
                # Jupyter's interrupt: SIGINT to the kernel's process group (Deno's kernelspec has
                # no interrupt_mode, so "signal"). A kernel that survives it goes on with the next
                # cells; one that ends is started again, as a frontend's restarter does.
                km.interrupt_kernel()
                wait_for_end(life.process, step.get('wait', 15))
                if life.process.poll() is None:
                    session['steps'].append('kernel survived the interrupt')
                    continue
                life.finish('interrupt')
                nxt = Life(scratch, len(lives))
                lives.append(nxt)
                kc.stop_channels()
                km.cleanup_resources(restart=True)
                start(nxt)
                kc = km.client()
                kc.start_channels()
                kc.wait_for_ready(timeout=START_TIMEOUT_S)
            elif kind in ('restart', 'restart-kernel'):
                if kind == 'restart':
                    # restart_kernel() in its two steps, as for `shutdown`: the interrupt, then,
                    # once the kernel ended (or the limit passed), the restart.
                    km.interrupt_kernel()
                    wait_for_end(life.process)
                nxt = Life(scratch, len(lives))
                lives.append(nxt)
                km.restart_kernel(now=False, stdout=nxt.stdout_file, stderr=nxt.stderr_file)
                life.finish(kind.replace('-', '_'))
                nxt.started(km)
                kc.wait_for_ready(timeout=START_TIMEOUT_S)
            elif kind == 'shutdown':
                # jupyter_client's shutdown in its two steps, the second only once the first is
                # over: the interrupt, then, were the kernel still alive, shutdown_request.
                # shutdown_kernel() sends both at once, and Deno's kernel then calls exit() on
                # its main thread while the interrupt's teardown runs on the JS thread (the
                # `shutdown-kernel` case; README.md, "The notebook column").
                km.interrupt_kernel()
                wait_for_end(life.process)
                if life.process.poll() is None:
                    km.shutdown_kernel(now=False)
                else:
                    km.cleanup_resources()
                life.finish('shutdown')
            elif kind == 'shutdown-kernel':
                # What a frontend calls: interrupt, then shutdown_request right behind it.
                km.shutdown_kernel(now=False)
                life.finish('shutdown_kernel')
            elif kind == 'shutdown-request':
                # The protocol's shutdown message alone, no interrupt before it.
                km.request_shutdown()
                life.finish('shutdown_request')
                km.cleanup_resources()
            elif kind == 'pause':
                time.sleep(step['seconds'])
            else:
                raise ValueError(f'unknown step {kind}')
    except Exception as error:  # a kernel that does not start or answer: recorded, never hangs
        session['error'] = f'{type(error).__name__}: {error}'
    finally:
        kc.stop_channels()
        for life in lives:
            if life.record is None:
                if life.process is not None and life.process.poll() is None:
                    life.hung = life.hung or 'error' in session
                    try:
                        km.shutdown_kernel(now=True)
                    except Exception:
                        life.process.kill()
                life.finish('killed by the driver')
    session['kernels'] = [life.record for life in lives]
    print(json.dumps(session))


if __name__ == '__main__':
    main()
