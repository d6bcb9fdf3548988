// The end-to-end suite (lib/suite.mjs) over stdio: the SDK's StdioClientTransport starts the bridge.
import { bridgeSuite } from "../lib/suite.mjs";

bridgeSuite("stdio");
