import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const tempDir = (prefix = 'gw-test-') => fs.mkdtempSync(path.join(os.tmpdir(), prefix))
