import { fileURLToPath } from "node:url";
import { withAgentSurface } from "@agent-surface/next";

/** @type {import("next").NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // This example links the repository's packages (file:), outside the app's folder: Turbopack
  // follows those links only inside its root. (An app installing from a registry needs no root.)
  turbopack: { root: fileURLToPath(new URL("../..", import.meta.url)) },
  outputFileTracingRoot: fileURLToPath(new URL("../..", import.meta.url)),
  // The end-to-end test type-checks once (in its first build), not in each of its builds.
  typescript: { ignoreBuildErrors: process.env.NEXT_APP_SKIP_TYPECHECK === "1" },
};

export default withAgentSurface(nextConfig);
