// Prints why the `dem-webgpu` module subset cannot run here, or `available`.
import { demWebgpuUnavailable } from './modules.mjs';

const reason = await demWebgpuUnavailable();
console.log(reason === null ? 'available' : `unavailable: ${reason}`);
