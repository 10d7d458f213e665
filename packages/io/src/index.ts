/**
 * @peclet/io — file formats shared by the solvers and apps: voxel images in (raw, .npy/.npz,
 * TIFF stacks), VTK XML and PNG out, every file written atomically.
 *
 * @packageDocumentation
 */
export { readPath, writeAtomically, writeAtomicallySync } from './atomic.js';
export { FileFormatError } from './errors.js';
export { type NpyArray, type ReadNpyOptions, readNpy, readNpyArray } from './npy.js';
export {
  imageWarnings,
  neighbourCorrelation,
  permeabilityWarning,
  plausiblePermeability,
  plausiblePorosity,
  plausibleVoxelSize,
} from './plausible.js';
export { type Slice, type SliceOptions, sliceOf, type WritePngOptions, writePng } from './png.js';
export { type RawDtype, type ReadRawOptions, readRaw, type SolidRule } from './raw.js';
export { type ReadImageOptions, readImage } from './read.js';
export { bereaSamplePath, readBereaSample } from './sample.js';
export { type ReadTiffOptions, readTiff } from './tiff.js';
export { checkVoxelImage, fromPoreSpy, porosity, type Shape3, type VoxelImage } from './voxel.js';
export {
  type DataArrayInput,
  type DataArrays,
  type NumericArray,
  type VtkType,
  type WritePvtiOptions,
  type WriteVtiOptions,
  type WriteVtpOptions,
  writePvti,
  writeVti,
  writeVtp,
} from './vtk.js';
