// Input and output of run-time values: .npy and JSON files, scalars from command-line text,
// and random inputs from spec strings. Error codes E500–E599.

export { readNpy, writeNpy, type ReadNpyOptions, type WriteNpyOptions } from './npy.js';
export { readJsonValue, valueToJson } from './jsonValues.js';
export { parseArgAssignment, parseScalar } from './scalars.js';
export { parseRandomSpec, randomValue, randomValues, type RandomSpec } from './random.js';
export { decodeValueFile, encodeValueFile, valueFileFormat, type ValueFileFormat } from './valueFiles.js';
export { ensureDirectory, readValueFile, writeFile, writeValueFile } from './files.js';
