/**
 * heightbench.yaml's keys act or are refused. Regression fixture `yaml-keys-that-did-nothing`: `pipeline:` was accepted
 * and never read (a rebuild folder written without pipeline.json was then the seed pipeline, and the first `dvc repro`
 * of a researcher's repository was refused as a pipeline mismatch), and `manifests:` was accepted with any value. Now
 * `pipeline:` is read and checked when the file is, and names the declaration of a folder without pipeline.json;
 * `manifests:` is an unknown key. A run folder that does not exist is said as such, not as a pipeline mismatch.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSystemError, FormatError, MismatchError } from '../src/errors.js';
import { pipelineJson, readPipelineDeclaration } from '../src/pipelines/declaration.js';
import { sharedPipeline } from '../src/pipelines/run-folder.js';
import { parseRepoConfig } from '../src/runs/repo-config.js';
import { tempDir } from './helpers.js';

const own = resolve(import.meta.dirname, '..', 'examples', 'own-pipeline', 'pipeline.yaml');

describe("heightbench.yaml's pipeline: and manifests:", () => {
  const root = tempDir('hb-repo-config-');
  copyFileSync(own, join(root, 'pipeline.yaml'));
  const declared = readPipelineDeclaration(own);

  it('pipeline: is read and checked with the file; a missing one and manifests: are refused', () => {
    const cfg = parseRepoConfig(root, 'version: 1\npipeline: pipeline.yaml\ncomparisons: []\n');
    expect(cfg.pipeline?.name).toBe('my-terrain');
    expect(parseRepoConfig(root, 'version: 1\n').pipeline).toBeNull();
    expect(() => parseRepoConfig(root, 'version: 1\npipeline: missing.yaml\n')).toThrow(/missing\.yaml/);
    expect(() => parseRepoConfig(root, 'version: 1\nmanifests: 42\n')).toThrow(FormatError);
    expect(() => parseRepoConfig(root, 'version: 1\nmanifests: 42\n')).toThrow(/unknown key "manifests"/);
  });

  it("a folder without pipeline.json is the declared pipeline's; without one declared, the seed's", () => {
    const rebuild = join(root, 'rebuild');
    const reference = join(root, 'reference');
    mkdirSync(rebuild, { recursive: true });
    mkdirSync(reference, { recursive: true });
    writeFileSync(join(reference, 'pipeline.json'), pipelineJson(declared));
    expect(sharedPipeline(rebuild, reference, declared).name).toBe('my-terrain');
    expect(() => sharedPipeline(rebuild, reference)).toThrow(MismatchError);
    expect(() => sharedPipeline(rebuild, reference)).toThrow(/is the seed pipeline/);
    expect(() => sharedPipeline(join(root, 'absent'), reference, declared)).toThrow(FileSystemError);
    expect(() => sharedPipeline(join(root, 'absent'), reference, declared)).toThrow(/absent: no such run folder/);
  });
});
