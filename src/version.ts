/** Producer name and version written into every sidecar. A test keeps it equal to package.json's version. */
export const PRODUCER_NAME = 'heightbench';
export const PRODUCER_VERSION = '0.1.0';
