// A worker of examples/step.mjs's Stepper: steps its range of the shared
// agents once a frame until told to stop.
import { workerData } from 'node:worker_threads'

import { serveSteps } from './step.mjs'

serveSteps(workerData)
