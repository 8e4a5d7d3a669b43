// A worker of examples/step.mjs's Stepper: steps its range of the shared
// agents once a frame until told to stop.
import { parentPort, workerData } from 'node:worker_threads'

import { serveSteps } from './step.mjs'

parentPort.postMessage('ready')
serveSteps(workerData)
