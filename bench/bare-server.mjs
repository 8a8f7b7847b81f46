// The framework's ceiling: Fastify 5 with one route and no logger, nothing else. Every scenario is
// also reported as a fraction of what this process answers, so framework cost and ours separate.
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.get("/", async () => ({ ok: true }));

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST || "127.0.0.1" });
console.log(`listening on ${address}`);
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
