# The sandbox as a container image: the one file (dist/call-sandbox.cjs) on Node 24, nothing else.
#
#   npm ci && npm run build && docker build -t call-sandbox .
#   docker run --rm -p 127.0.0.1:4010:4010 call-sandbox
#
# Inside, it listens on every interface, so it needs an admin token: give one in CALL_SANDBOX_ADMIN_TOKEN, or it makes
# a random one at start and prints it once (docker logs shows it). docs/guides/ci-without-node.md says more;
# test/anywhere/dockerfile.test.ts runs what this file copies, with its command, environment and health check, in a
# folder (no image is built by the tests).
FROM node:24-slim
WORKDIR /sandbox
COPY dist/call-sandbox.cjs /sandbox/call-sandbox.cjs
# node:24-slim's own unprivileged user (uid 1000).
USER node
ENV PORT=4010
EXPOSE 4010
# Node's fetch, as the image has no curl: ready once the world is seeded and its store answers.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/_sandbox/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/sandbox/call-sandbox.cjs", "--host", "0.0.0.0", "--make-admin-token"]
# Options go after the image's name: docker run ... call-sandbox --seed 7 --rate-limit 60/min
# Another port: -e PORT=8080, not --port, so that the health check asks the port the server listens on.
CMD []
