#!/bin/sh
# Test a prebuilt addon without Rust: CI's test jobs download `tool-index.<triple>.node` from the
# build job next to package.json, install dependencies, then run this. It compiles the TypeScript
# layer and runs the Bun suites (including the packed-install test) and the Node smoke test.
# POSIX sh: it also runs inside node:*-alpine containers.
set -eu
cd "$(dirname "$0")/.."
ls tool-index.*.node
node --version
npx --no-install bun --version
npm run build:ts
npm run test:bun
npm run test:node
