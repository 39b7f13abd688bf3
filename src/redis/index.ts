export { closeRedis, connectRedis, type RedisClient } from './redis-connection.js';
