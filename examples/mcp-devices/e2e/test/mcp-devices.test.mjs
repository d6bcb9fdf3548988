// End to end: the official MCP TypeScript SDK client drives the `mcp-devices` host over stdio.
// The host's control channel (TCP, not an MCP tool) plays the user: it approves or denies
// confirmations and mounts components.
//
//   MCP_DEVICES_BIN=.../target/debug/mcp-devices MANIFEST=.../examples/devices-app/agent-surface.manifest.json npm test

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const BIN = process.env.MCP_DEVICES_BIN;
const MANIFEST = process.env.MANIFEST;
if (!BIN || !MANIFEST) {
  throw new Error('set MCP_DEVICES_BIN (the built mcp-devices binary) and MANIFEST (the example app manifest)');
}

let client;
let transport;
let control;
const listChanged = [];

/** The host control channel: one command line out, one JSON line back. */
function connectControl(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buffer = '';
    const waiting = [];
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buffer += chunk;
      let i;
      while ((i = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        waiting.shift()?.(JSON.parse(line));
      }
    });
    socket.on('error', reject);
    socket.on('connect', () =>
      resolve({
        send(command) {
          return new Promise((res) => {
            waiting.push(res);
            socket.write(command + '\n');
          });
        },
        async ok(command) {
          const answer = await this.send(command);
          assert.equal(answer.ok, true, `${command}: ${JSON.stringify(answer)}`);
          return answer.result;
        },
        close() {
          socket.end();
        },
      }),
    );
  });
}

/** Resolves with the control port once the host printed `control: 127.0.0.1:PORT`. */
function controlPort(stderr) {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no control port on stderr: ${text}`)), 20_000);
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk) => {
      text += chunk;
      const m = text.match(/control: 127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
}

async function waitFor(predicate, what, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Our payload of a failed call: structuredContent when present, else the JSON text. */
function payload(result) {
  assert.equal(result.isError, true, JSON.stringify(result));
  const text = JSON.parse(result.content[0].text);
  if (result.structuredContent) assert.deepEqual(result.structuredContent, text);
  assert.deepEqual(result._meta?.['agent-surface/result'], text);
  return text;
}

function output(result) {
  assert.notEqual(result.isError, true, JSON.stringify(result));
  return JSON.parse(result.content[0].text);
}

const call = (name, args = {}, options) => client.callTool({ name, arguments: args }, undefined, options);

before(async () => {
  transport = new StdioClientTransport({ command: BIN, args: [MANIFEST], stderr: 'pipe' });
  const port = controlPort(transport.stderr);
  client = new Client({ name: 'mcp-devices-e2e', version: '0.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged.push(Date.now());
  });
  await client.connect(transport);
  control = await connectControl(await port);
});

after(async () => {
  control?.close();
  await client?.close();
});

test('initialize advertises tools with listChanged', () => {
  const caps = client.getServerCapabilities();
  assert.equal(caps.tools?.listChanged, true);
  assert.equal(client.getServerVersion().name, 'mcp-devices');
});

test('tools/list: wire-safe names, prefixed descriptions, explicit annotations', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    [
      'domain_devices_decommission',
      'domain_devices_reboot',
      'external_reports_export',
      'view_app_nav_currentRoute',
      'view_app_nav_navigate',
      'view_devices_table_clearSelection',
      'view_devices_table_filter',
      'view_devices_table_readSelection',
      'view_devices_table_readState',
      'view_devices_table_selectRows',
      'view_devices_table_sortBy',
    ],
  );
  for (const t of tools) {
    assert.match(t.name, /^[A-Za-z0-9_-]{1,64}$/);
    assert.match(t.description, /^\[(view|domain|external) · [a-z-]+ · (never|optional|required)\] /);
    assert.equal(t.inputSchema.type, 'object');
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      assert.equal(typeof t.annotations?.[hint], 'boolean', `${t.name}.${hint} is explicit`);
    }
  }
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(byName.view_devices_table_readState.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  assert.deepEqual(byName.domain_devices_decommission.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
  assert.deepEqual(byName.external_reports_export.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
  assert.equal(byName.view_devices_table_readState.outputSchema.type, 'object');
  assert.equal(byName.domain_devices_decommission.outputSchema, undefined);
});

test('an observation', async () => {
  const r = await call('view_devices_table_readState');
  const state = output(r);
  assert.deepEqual(r.structuredContent, state, 'validated by the SDK against outputSchema');
  assert.equal(state.rows.length, 4);
  assert.equal(state.sort, 'name');
  assert.ok(r._meta['agent-surface/invocation'].invocationId, 'the request id became the invocationId');
});

test('an action, then its effect observed', async () => {
  const r = await call('view_devices_table_sortBy', { column: 'status', direction: 'desc' });
  assert.deepEqual(output(r), { sort: 'status', direction: 'desc' });
  const state = output(await call('view_devices_table_readState'));
  assert.equal(state.sort, 'status');
  assert.deepEqual(state.rows.map((row) => row.status), ['online', 'online', 'offline', 'maintenance']);
  assert.equal(await control.ok('count view:devices.table.sortBy'), 1);
});

test('errors are isError results carrying our payload', async () => {
  const bad = payload(await call('view_devices_table_sortBy', { column: 'color' }));
  assert.equal(bad.status, 'error');
  assert.equal(bad.error.code, 'INVALID_INPUT');
  assert.equal(bad.error.retry, 'with-changes');
  assert.ok(Array.isArray(bad.error.details.issues));
  const pre = payload(await call('view_devices_table_selectRows', { ids: ['dev_nothere1'] }));
  assert.equal(pre.error.code, 'PRECONDITION_FAILED');
  assert.deepEqual(pre.error.details.unknownIds, ['dev_nothere1']);
  const missing = payload(await call('no_such_tool'));
  assert.equal(missing.error.code, 'CAPABILITY_NOT_FOUND');
});

test('a destructive procedure: CONFIRMATION_REQUIRED, approved through the host, retried, runs once', async () => {
  const args = { ids: ['dev_a1b2c3'] };
  const first = payload(await call('domain_devices_decommission', args));
  assert.equal(first.error.code, 'CONFIRMATION_REQUIRED');
  assert.equal(first.error.retry, 'after-confirmation');
  const cid = first.error.details.confirmationId;
  assert.match(cid, /^cnf_/);
  assert.match(first.error.details.summary, /dev_a1b2c3/);

  // Retrying before the user answered: the same confirmation, nothing ran.
  const early = payload(await call('domain_devices_decommission', args));
  assert.equal(early.error.code, 'CONFIRMATION_REQUIRED');
  assert.equal(early.error.details.confirmationId, cid);
  assert.equal(await control.ok('count domain:devices.decommission'), 0);

  // The user approves, out of band.
  const pending = await control.ok('pending');
  assert.deepEqual(pending.map((p) => [p.confirmationId, p.capabilityId]), [[cid, 'domain:devices.decommission']]);
  await control.ok(`approve ${cid}`);
  assert.deepEqual(await control.ok('pending'), []);

  // The model repeats the same call with the same arguments: it runs, once.
  const done = output(await call('domain_devices_decommission', args));
  assert.deepEqual(done, { removed: 1, ids: ['dev_a1b2c3'] });
  assert.equal(await control.ok('count domain:devices.decommission'), 1);
  assert.ok(!(await control.ok('devices')).includes('dev_a1b2c3'));

  // The evidence was single use: the next identical call asks again, and a denial is final.
  const again = payload(await call('domain_devices_decommission', args));
  assert.equal(again.error.code, 'CONFIRMATION_REQUIRED');
  assert.notEqual(again.error.details.confirmationId, cid);
  await control.ok(`deny ${again.error.details.confirmationId}`);
  const denied = payload(await call('domain_devices_decommission', args));
  assert.equal(denied.error.code, 'CONFIRMATION_DENIED');
  assert.equal(await control.ok('count domain:devices.decommission'), 1);
  // No MCP tool can approve: the control commands are not in the tool list.
  const { tools } = await client.listTools();
  assert.ok(!tools.some((t) => /approve|confirm|pending/i.test(t.name)));
});

test('an external tool through the exposure gateway, same two-phase rule', async () => {
  const first = payload(await call('external_reports_export', { format: 'pdf' }));
  assert.equal(first.error.code, 'CONFIRMATION_REQUIRED');
  const cid = first.error.details.confirmationId;
  await control.ok(`approve ${cid}`);
  const r = await call('external_reports_export', { format: 'pdf' });
  const job = output(r);
  assert.match(job.jobId, /^[0-9a-f-]{36}$/);
  assert.deepEqual(r.structuredContent, job);
  assert.equal(await control.ok('count external:reports.export'), 1);
});

test('notifications/cancelled maps to CANCELLED', async () => {
  await control.ok('slow 10000');
  const abort = new AbortController();
  const pending = call('domain_devices_reboot', { ids: ['dev_8f3k2a'] }, { signal: abort.signal });
  await waitFor(async () => (await control.ok('count domain:devices.reboot')) === 1, 'the reboot handler to start');
  abort.abort();
  await assert.rejects(pending);
  await waitFor(async () => (await control.ok('stats')).outcomes.CANCELLED === 1, 'the host to record CANCELLED');
  await control.ok('slow 0');
  // The server is still fine afterwards.
  assert.deepEqual(output(await call('domain_devices_reboot', { ids: ['dev_8f3k2a'] })), { scheduled: 1 });
});

test('a second table instance: list_changed, then per-instance tools', async () => {
  const before = listChanged.length;
  await control.ok('mount archive');
  await waitFor(() => listChanged.length > before, 'notifications/tools/list_changed');
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes('view_devices_table_readState__main'), names.join());
  assert.ok(names.includes('view_devices_table_readState__archive'), names.join());
  assert.ok(!names.includes('view_devices_table_readState'), 'no ambiguous name');
  assert.equal(names.filter((n) => n.startsWith('domain_devices_decommission')).length, 1);
  const archive = tools.find((t) => t.name === 'view_devices_table_readState__archive');
  assert.match(archive.description, /\(instance "archive"\)/);
  // Each instance has its own view state: main was sorted by status, archive is not.
  assert.equal(output(await call('view_devices_table_readState__archive')).sort, 'name');
  assert.equal(output(await call('view_devices_table_readState__main')).sort, 'status');
  // Unmounting changes the block again.
  const settled = listChanged.length;
  await control.ok('unmount archive');
  await waitFor(() => listChanged.length > settled, 'list_changed after unmount');
  const back = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(back.includes('view_devices_table_readState'));
});

test('a state-only change leaves the tool block alone; the call says why', async () => {
  const { tools: before } = await client.listTools();
  const settled = listChanged.length;
  await control.ok('disable main');
  const unavailable = payload(await call('view_devices_table_readState'));
  assert.equal(unavailable.error.code, 'CAPABILITY_NOT_AVAILABLE');
  assert.equal(unavailable.error.retry, 'after-delay');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(listChanged.length, settled, 'no list_changed: the MCP block carries no state');
  const { tools: after } = await client.listTools();
  assert.deepEqual(after, before, 'byte-identical definitions');
  await control.ok('enable main');
  assert.equal(output(await call('view_devices_table_readState')).sort, 'status');
});
