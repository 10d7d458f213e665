import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// ESM only: the apps import it, and the CLI bundles it into both of its formats.
export default defineConfig(packageBuild({ format: ['esm'] }));
