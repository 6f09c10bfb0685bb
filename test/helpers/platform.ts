/** The platform tests' hosts and ids (msw answers these; none is real). */
export const PLATFORM = 'https://platform.test';
export const STREAM = 'https://stream.test';
export const TOKEN = 'ready-token-abcdef123456';
export const CONV = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
export const CUSTOMER = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
export const CHANNEL = '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
