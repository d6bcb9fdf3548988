// The end-to-end suite (lib/suite.mjs) over Streamable HTTP: `agent-surface bridge --http`, the
// SDK's StreamableHTTPClientTransport with the bridge's token as a bearer header.
import { bridgeSuite } from "../lib/suite.mjs";

bridgeSuite("http");
