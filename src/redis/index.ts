/**
 * `wa-gateway-sdk/redis`: the stores that make the SDK's guarantees hold across many processes (pods, serverless
 * functions, a web tier plus workers). Node only; `ioredis` and `bullmq` are optional peer dependencies that only
 * this entry loads.
 */
export {};
