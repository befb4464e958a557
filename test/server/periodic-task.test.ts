import t from 'tap';
import { startPeriodicTask } from '../../server/periodic-task.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { waitUntil } from '../helpers/wait-until.js';

t.test('a failing run is logged and the next run still happens; stop ends the runs', async (t) => {
  const captured = captureLogger('warn');
  let runs = 0;
  const task = startPeriodicTask('flaky', 10, () => {
    runs++;
    if (runs === 1) throw new Error('first run fails');
  }, captured.logger);
  t.teardown(() => task.stop());
  await waitUntil('three runs', async () => runs >= 3);
  t.match(captured.lines, [{ msg: 'periodic task failed', task: 'flaky' }]);
  task.stop();
  const stoppedAt = runs;
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(runs, stoppedAt, 'no run after stop');
});
