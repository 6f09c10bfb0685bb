/** The SDK's version, sent in the User-Agent. A test keeps it equal to package.json's. */
export const SDK_VERSION = '0.1.0';

export function userAgent(): string {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  return `wa-gateway-sdk/${SDK_VERSION}${node ? ` node/${node}` : ''}`;
}
