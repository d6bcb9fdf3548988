//! The text of each kind of generated file: one writer per kind, called by [`super::render`].

use super::*;
use std::fmt::Write as _;

pub(super) fn app(w: &mut String, plan: &Plan) {
    w.push_str("import { lazy, Suspense, useState } from \"react\";\n");
    let mut routes = Vec::new();
    for (i, f) in plan.features.iter().enumerate() {
        if let Some(c) = plan.components(i).first() {
            let _ = writeln!(w, "import {{ {c} }} from \"./features/{}/components/{c}\";", f.name);
            routes.push((f.name.clone(), c.clone()));
        }
    }
    w.push_str("\nconst Settings = lazy(() => import(\"./pages/Settings\"));\n\n");
    w.push_str("type Route =\n");
    if routes.is_empty() {
        w.push_str("  | \"home\";\n");
    }
    for (i, (name, _)) in routes.iter().enumerate() {
        let _ = writeln!(w, "  | \"{name}\"{}", if i + 1 == routes.len() { ";" } else { "" });
    }
    w.push_str("\nexport function App() {\n  const [route, setRoute] = useState<Route>(");
    let _ = write!(w, "\"{}\"", routes.first().map_or("home", |r| r.0.as_str()));
    w.push_str(");\n  return (\n    <div className=\"app\">\n      <nav className=\"app-nav\">\n");
    for (name, _) in &routes {
        let _ = writeln!(w, "        <button type=\"button\" className={{route === \"{name}\" ? \"active\" : undefined}} onClick={{() => setRoute(\"{name}\")}}>\n          {}\n        </button>", pascal(name));
    }
    w.push_str("      </nav>\n      <main>\n        <Suspense fallback={<p>Loading…</p>}>\n");
    for (name, c) in &routes {
        let _ = writeln!(w, "          {{route === \"{name}\" && <{c} />}}");
    }
    w.push_str("        </Suspense>\n      </main>\n    </div>\n  );\n}\n\nexport default App;\n");
}

pub(super) fn ui(w: &mut String, name: &str, rng: &mut Rng) {
    let _ = write!(
        w,
        "import {{ forwardRef, type ReactNode }} from \"react\";\n\nexport interface {name}Props {{\n  children?: ReactNode;\n  className?: string;\n  disabled?: boolean;\n  label?: string;\n  tone?: \"neutral\" | \"primary\" | \"danger\";\n  onClick?: () => void;\n}}\n\n"
    );
    let _ = write!(
        w,
        "export const {name} = forwardRef<HTMLDivElement, {name}Props>(function {name}(\n  {{ children, className, disabled = false, label, tone = \"neutral\", onClick }},\n  ref,\n) {{\n  const classes = [\"ui-{lower}\", `ui-{lower}--${{tone}}`, disabled ? \"is-disabled\" : null, className].filter(Boolean).join(\" \");\n  return (\n    <div ref={{ref}} className={{classes}} role=\"{role}\" aria-label={{label}} aria-disabled={{disabled}} onClick={{disabled ? undefined : onClick}}>\n      {{children ?? label}}\n    </div>\n  );\n}});\n",
        lower = name.to_lowercase(),
        role = if name == "Button" { "button" } else { "group" },
    );
    for k in 0..rng.range(1, 3) {
        let _ = write!(w, "\nexport function {name}Group{k}({{ items }}: {{ items: {name}Props[] }}) {{\n  return (\n    <div className=\"ui-{lower}-group\">\n      {{items.map((item, index) => (\n        <{name} key={{index}} {{...item}} />\n      ))}}\n    </div>\n  );\n}}\n", lower = name.to_lowercase());
    }
}

pub(super) fn shared_schemas(w: &mut String, f: &Feature, rng: &mut Rng) {
    let (p, u) = (&f.pascal, &f.upper);
    let _ = writeln!(w, "// JSON Schemas of the {} feature, shared by its contracts (literal consts).\n", f.name);
    let _ = writeln!(
        w,
        "export const {u}_ID = {{\n  type: \"string\",\n  pattern: \"^{}[a-z0-9]{{6,}}$\",\n  description: \"An id such as {}8f3k2a\",\n}} as const;\n",
        f.id_prefix, f.id_prefix
    );
    let statuses: Vec<String> = f.statuses.iter().map(|s| format!("\"{s}\"")).collect();
    let _ = writeln!(
        w,
        "export const {p}Status = {{\n  enum: [{}],\n  description: \"Lifecycle status\",\n}} as const;\n",
        statuses.join(", ")
    );
    let _ = write!(w, "export const {p}Row = {{\n  type: \"object\",\n  properties: {{\n    id: {u}_ID,\n    name: {{ type: \"string\", maxLength: {} }},\n    status: {p}Status,\n    updatedAt: {{ type: [\"string\", \"null\"], format: \"date-time\" }},\n", rng.range(80, 200));
    let required = ["\"id\"", "\"name\"", "\"status\"", "\"updatedAt\""];
    for (k, field) in f.extra_fields.iter().enumerate().take(3) {
        match k % 3 {
            0 => {
                let _ = writeln!(w, "    {field}: {{ type: \"string\", maxLength: {} }},", rng.range(20, 120));
            }
            1 => {
                let _ = writeln!(
                    w,
                    "    {field}: {{ type: \"integer\", minimum: 0, maximum: {} }},",
                    rng.range(10, 100_000)
                );
            }
            _ => {
                let _ = writeln!(w, "    {field}: {{ type: \"number\", minimum: 0 }},");
            }
        }
    }
    let _ =
        writeln!(w, "  }},\n  required: [{}],\n  additionalProperties: false,\n}} as const;\n", required.join(", "));
    let _ = writeln!(w, "export const {u}_SORT_COLUMNS = [\"name\", \"status\", \"updatedAt\"] as const;\n");
    let _ = writeln!(
        w,
        "export const {p}OpenInput = {{\n  type: \"object\",\n  properties: {{\n    id: {u}_ID,\n    tab: {{ enum: [\"overview\", \"history\", \"settings\"], default: \"overview\" }},\n  }},\n  required: [\"id\"],\n  additionalProperties: false,\n}} as const;"
    );
}

pub(super) fn shared_zod(w: &mut String, f: &Feature, rng: &mut Rng) {
    let (p, u) = (&f.pascal, &f.upper);
    let _ = writeln!(w, "// zod schemas of the {}: validated by zod at run time, converted by the compiler.", f.name);
    let _ =
        writeln!(w, "import {{ z }} from \"zod\";\nimport {{ {u}_SORT_COLUMNS }} from \"../schemas/{}\";\n", f.name);
    let _ = writeln!(
        w,
        "export const {p}IdZ = z.string().regex(/^{}[a-z0-9]{{6,}}$/).describe(\"An id such as {}8f3k2a\");\n",
        f.id_prefix, f.id_prefix
    );
    let _ = writeln!(w, "export const {p}SortInput = z.object({{\n  column: z.enum({u}_SORT_COLUMNS),\n  direction: z.enum([\"asc\", \"desc\"]).default(\"asc\"),\n}});\n");
    let statuses: Vec<String> = f.statuses.iter().map(|s| format!("\"{s}\"")).collect();
    let _ = writeln!(
        w,
        "export const {p}FilterInput = z.strictObject({{\n  text: z.string().max({}).describe(\"Text the name must contain; empty shows all\"),\n  status: z.enum([{}]).optional(),\n}});\n",
        rng.range(40, 120),
        statuses.join(", ")
    );
    let _ = writeln!(
        w,
        "export const {p}UpdateInput = z.object({{\n  ids: z.array({p}IdZ).min(1).max({}),\n  note: z.string().max(200).optional(),\n  notify: z.boolean().default(true),\n  {}: z.number().int().min(0).optional(),\n}});\n",
        rng.range(10, 100),
        f.extra_fields[0]
    );
    let _ = writeln!(w, "export const {p}Job = z.object({{\n  jobId: z.uuid(),\n  queuedAt: z.iso.datetime(),\n  format: z.enum([\"csv\", \"pdf\", \"xlsx\"]),\n}});");
}

pub(super) fn field_type(field: &str, k: usize) -> &'static str {
    match (field.len() + k) % 4 {
        0 => "string",
        1 => "number",
        2 => "string | null",
        _ => "boolean",
    }
}

pub(super) fn types(w: &mut String, f: &Feature, rng: &mut Rng) {
    let p = &f.pascal;
    let statuses: Vec<String> = f.statuses.iter().map(|s| format!("\"{s}\"")).collect();
    let _ = writeln!(w, "// Types of the {} feature.\n\nexport type {p}Status = {};\n", f.name, statuses.join(" | "));
    let _ = writeln!(w, "export interface {p}Item {{\n  id: string;\n  name: string;\n  status: {p}Status;\n  ownerId: string | null;\n  createdAt: string;\n  updatedAt: string | null;\n  tags: string[];");
    for (k, field) in f.extra_fields.iter().enumerate() {
        let _ = writeln!(w, "  {field}{}: {};", if k % 3 == 2 { "?" } else { "" }, field_type(field, k));
    }
    w.push_str("}\n\n");
    let _ = writeln!(w, "export interface {p}Query {{\n  page: number;\n  pageSize: number;\n  sort?: keyof {p}Item;\n  direction?: \"asc\" | \"desc\";\n  filter?: string;\n  status?: {p}Status[];\n}}\n");
    let _ = writeln!(
        w,
        "export type {p}Page = {{\n  items: {p}Item[];\n  total: number;\n  nextCursor: string | null;\n}};\n"
    );
    let _ = writeln!(w, "export type {p}Patch = Partial<Omit<{p}Item, \"id\" | \"createdAt\">>;\n");
    let _ = writeln!(w, "export type {p}Event =\n  | {{ type: \"created\"; item: {p}Item }}\n  | {{ type: \"updated\"; id: string; patch: {p}Patch }}\n  | {{ type: \"removed\"; id: string }}\n  | {{ type: \"reset\"; items: {p}Item[] }};\n");
    let _ = writeln!(w, "export type {p}ById = Record<string, {p}Item>;\n");
    let _ = writeln!(
        w,
        "export type {p}Handler<T extends {p}Event[\"type\"]> = (event: Extract<{p}Event, {{ type: T }}>) => void;\n"
    );
    let _ = writeln!(w, "export interface {p}State {{\n  byId: {p}ById;\n  order: string[];\n  selected: ReadonlySet<string>;\n  loading: boolean;\n  error: string | null;\n  lastEvent?: {p}Event;\n}}\n");
    for k in 0..rng.range(3, 7) {
        let noun = rng.pick(NOUNS);
        let _ = writeln!(w, "export interface {p}{}{k} {{\n  id: string;\n  {noun}: {};\n  label: string;\n  createdBy: string;\n  history: Array<{{ at: string; by: string; change: {p}Patch }}>;\n  readonly meta: Readonly<Record<string, string | number | boolean>>;\n}}\n", pascal(noun), field_type(noun, k));
    }
    let _ = writeln!(w, "export function is{p}Item(value: unknown): value is {p}Item {{\n  return typeof value === \"object\" && value !== null && \"id\" in value && \"status\" in value;\n}}");
}

pub(super) fn constants(w: &mut String, f: &Feature, rng: &mut Rng) {
    let (p, u) = (&f.pascal, &f.upper);
    let _ = writeln!(w, "// Constants of the {} feature.\n", f.name);
    let _ = writeln!(w, "export const {u}_PAGE_SIZE = {};", [25, 50, 100][rng.below(3)]);
    let _ = writeln!(w, "export const {u}_MAX_SELECTION = {};", rng.range(20, 200));
    let _ = writeln!(w, "export const {u}_POLL_MS = {};\n", rng.range(5, 60) * 1000);
    let _ = writeln!(w, "export const {u}_ROUTES = {{\n  list: \"/{}\",\n  detail: \"/{}/:id\",\n  settings: \"/{}/settings\",\n}} as const;\n", f.name, f.name, f.name);
    w.push_str(&format!("export const {u}_LABELS = {{\n"));
    for s in &f.statuses {
        let _ = writeln!(w, "  {s}: \"{}\",", pascal(s));
    }
    w.push_str("} as const;\n\n");
    let _ = writeln!(w, "export const {u}_COLORS: Record<string, string> = {{");
    for s in &f.statuses {
        let _ = writeln!(w, "  {s}: \"#{:06x}\",", rng.next_u64() & 0xff_ffff);
    }
    w.push_str("};\n\n");
    let _ = writeln!(w, "export const {p}Columns = [");
    for field in ["name", "status", "updatedAt"].iter().chain(f.extra_fields.iter()) {
        let _ = writeln!(w, "  {{ key: \"{field}\", label: \"{}\", width: {} }},", pascal(field), rng.range(60, 240));
    }
    w.push_str("] as const;\n");
}

pub(super) fn api_contracts(w: &mut String, f: &Feature, rng: &mut Rng) -> usize {
    let (p, u, n) = (&f.pascal, &f.upper, &f.name);
    let _ = writeln!(
        w,
        "import {{ defineAgentProcedureContract as defineProcedure, defineExternalAgentToolContract, fromJsonSchema, fromStandardSchema }} from \"@agent-surface/core\";\nimport * as z from \"zod\";\nimport {{ {u}_ID }} from \"@/shared/schemas\";\nimport {{ {p}Job, {p}UpdateInput }} from \"@/shared/zod\";\nimport {{ {u}_MAX_SELECTION }} from \"./constants\";\n"
    );
    let _ = writeln!(
        w,
        "const {p}IdsInput = fromJsonSchema({{\n  type: \"object\",\n  properties: {{ ids: {{ type: \"array\", items: {u}_ID, minItems: 1, maxItems: {u}_MAX_SELECTION }} }},\n  required: [\"ids\"],\n  additionalProperties: false,\n}});\n"
    );
    let _ = writeln!(
        w,
        "export const update{p}Procedure = defineProcedure({{\n  id: \"domain:{n}.update\",\n  description: \"Update {n} records: note, notification and {}.\",\n  input: fromStandardSchema({p}UpdateInput, {{ jsonSchema: z.toJSONSchema({p}UpdateInput, {{ io: \"input\" }}) }}),\n  output: fromJsonSchema({{\n    type: \"object\",\n    properties: {{ updated: {{ type: \"integer\", minimum: 0 }} }},\n    required: [\"updated\"],\n    additionalProperties: false,\n  }}),\n  effect: \"mutation\",\n  tags: [\"{n}\"],\n}});\n",
        f.extra_fields[0]
    );
    let _ = writeln!(
        w,
        "export const archive{p}Procedure = defineProcedure({{\n  id: \"domain:{n}.archive\",\n  description: \"Archive {n} records. Archived records leave every list.\",\n  input: {p}IdsInput,\n  effect: \"destructive\",\n  audit: \"full\",\n  policies: [{{ name: \"role\", requires: \"{}\" }}],\n}});\n",
        if rng.chance(50) { "admin" } else { "owner" }
    );
    let _ = writeln!(
        w,
        "export const export{p}Tool = defineExternalAgentToolContract({{\n  id: \"external:{n}.export\",\n  description: \"Export the {n} report and email it to the signed-in user.\",\n  input: fromJsonSchema({{\n    type: \"object\",\n    properties: {{\n      format: {{ enum: [\"csv\", \"pdf\", \"xlsx\"], default: \"csv\" }},\n      since: {{ type: \"string\", format: \"date\" }},\n    }},\n    additionalProperties: false,\n  }}),\n  output: fromStandardSchema({p}Job, {{ jsonSchema: z.toJSONSchema({p}Job) }}),\n  effect: \"external-side-effect\",\n  confirmation: \"required\",\n}});\n"
    );
    3
}

pub(super) fn api(w: &mut String, plan: &Plan, fi: usize, contract: bool, rng: &mut Rng) {
    let f = &plan.features[fi];
    let (p, u, n) = (&f.pascal, &f.upper, &f.name);
    let _ = writeln!(w, "import type {{ {p}Item, {p}Page, {p}Patch, {p}Query }} from \"./types\";");
    if plan.feature_has(fi, &Kind::Constants) && !contract {
        let _ = writeln!(w, "import {{ {u}_PAGE_SIZE }} from \"./constants\";");
    } else if plan.feature_has(fi, &Kind::Constants) {
        let _ = writeln!(w, "import {{ {u}_PAGE_SIZE as PAGE_SIZE }} from \"./constants\";");
    }
    let page_size = if plan.feature_has(fi, &Kind::Constants) {
        if contract {
            "PAGE_SIZE".to_string()
        } else {
            format!("{u}_PAGE_SIZE")
        }
    } else {
        "50".into()
    };
    let _ = writeln!(
        w,
        "\nconst BASE = \"/api/{n}\";\n\nexport class {p}ApiError extends Error {{\n  constructor(\n    message: string,\n    readonly status: number,\n  ) {{\n    super(message);\n    this.name = \"{p}ApiError\";\n  }}\n}}\n\nasync function request<T>(path: string, init?: RequestInit): Promise<T> {{\n  const response = await fetch(`${{BASE}}${{path}}`, {{\n    headers: {{ \"content-type\": \"application/json\", accept: \"application/json\" }},\n    credentials: \"same-origin\",\n    ...init,\n  }});\n  if (!response.ok) {{\n    throw new {p}ApiError(`{n} request failed: ${{response.status}} ${{response.statusText}}`, response.status);\n  }}\n  if (response.status === 204) {{\n    return undefined as T;\n  }}\n  return (await response.json()) as T;\n}}\n"
    );
    let _ = writeln!(
        w,
        "export function list{p}(query: Partial<{p}Query> = {{}}): Promise<{p}Page> {{\n  const params = new URLSearchParams();\n  params.set(\"page\", String(query.page ?? 1));\n  params.set(\"pageSize\", String(query.pageSize ?? {page_size}));\n  if (query.sort) params.set(\"sort\", String(query.sort));\n  if (query.direction) params.set(\"direction\", query.direction);\n  if (query.filter) params.set(\"q\", query.filter);\n  for (const status of query.status ?? []) params.append(\"status\", status);\n  return request<{p}Page>(`?${{params.toString()}}`);\n}}\n\nexport function get{p}(id: string): Promise<{p}Item> {{\n  return request<{p}Item>(`/${{encodeURIComponent(id)}}`);\n}}\n\nexport function update{p}(id: string, patch: {p}Patch): Promise<{p}Item> {{\n  return request<{p}Item>(`/${{encodeURIComponent(id)}}`, {{ method: \"PATCH\", body: JSON.stringify(patch) }});\n}}\n\nexport function remove{p}(id: string): Promise<void> {{\n  return request<void>(`/${{encodeURIComponent(id)}}`, {{ method: \"DELETE\" }});\n}}\n"
    );
    for k in 0..rng.range(2, 6) {
        let noun = pascal(rng.pick::<&str>(NOUNS));
        let _ = writeln!(
            w,
            "export async function fetch{p}{noun}{k}(ids: readonly string[], signal?: AbortSignal): Promise<Map<string, {p}Item>> {{\n  const out = new Map<string, {p}Item>();\n  const chunks: string[][] = [];\n  for (let i = 0; i < ids.length; i += {}) {{\n    chunks.push(ids.slice(i, i + {}));\n  }}\n  for (const chunk of chunks) {{\n    const page = await request<{p}Page>(`/batch?ids=${{chunk.join(\",\")}}`, {{ signal }});\n    for (const item of page.items) {{\n      out.set(item.id, item);\n    }}\n  }}\n  return out;\n}}\n",
            rng.range(10, 50),
            rng.range(10, 50)
        );
    }
}

pub(super) fn store(w: &mut String, plan: &Plan, fi: usize, rng: &mut Rng) {
    let p = &plan.features[fi].pascal;
    let _ = writeln!(w, "import type {{ {p}Event, {p}Item, {p}State }} from \"./types\";\n");
    let _ = writeln!(w, "export const initial{p}State: {p}State = {{\n  byId: {{}},\n  order: [],\n  selected: new Set<string>(),\n  loading: false,\n  error: null,\n}};\n");
    let _ = writeln!(
        w,
        "export function {c}Reducer(state: {p}State, event: {p}Event): {p}State {{\n  switch (event.type) {{\n    case \"created\": {{\n      if (state.byId[event.item.id]) return state;\n      return {{\n        ...state,\n        byId: {{ ...state.byId, [event.item.id]: event.item }},\n        order: [...state.order, event.item.id],\n        lastEvent: event,\n      }};\n    }}\n    case \"updated\": {{\n      const current = state.byId[event.id];\n      if (!current) return state;\n      return {{ ...state, byId: {{ ...state.byId, [event.id]: {{ ...current, ...event.patch }} }}, lastEvent: event }};\n    }}\n    case \"removed\": {{\n      const {{ [event.id]: _removed, ...rest }} = state.byId;\n      const selected = new Set(state.selected);\n      selected.delete(event.id);\n      return {{ ...state, byId: rest, order: state.order.filter((id) => id !== event.id), selected, lastEvent: event }};\n    }}\n    case \"reset\": {{\n      const byId: Record<string, {p}Item> = {{}};\n      for (const item of event.items) byId[item.id] = item;\n      return {{ ...state, byId, order: event.items.map((item) => item.id), lastEvent: event }};\n    }}\n    default: {{\n      const never: never = event;\n      return never;\n    }}\n  }}\n}}\n",
        c = camel(p)
    );
    for k in 0..rng.range(2, 5) {
        let _ = writeln!(w, "export function select{p}Page{k}(state: {p}State, page: number, size: number): {p}Item[] {{\n  return state.order.slice(page * size, (page + 1) * size).map((id) => state.byId[id]).filter((item): item is {p}Item => Boolean(item));\n}}\n");
    }
}

pub(super) fn hook(w: &mut String, plan: &Plan, fi: usize, name: &str, rng: &mut Rng) {
    let f = &plan.features[fi];
    let p = &f.pascal;
    let has_api = plan.feature_has(fi, &Kind::Api);
    let _ = writeln!(w, "import {{ useCallback, useEffect, useMemo, useRef, useState }} from \"react\";\nimport type {{ {p}Item, {p}Query }} from \"../types\";");
    if has_api {
        let _ = writeln!(w, "import {{ list{p} }} from \"../api\";");
    }
    let _ = writeln!(w, "\nexport interface {}Options {{\n  query?: Partial<{p}Query>;\n  enabled?: boolean;\n  debounceMs?: number;\n  onError?: (error: Error) => void;\n}}\n", pascal(name));
    let _ = writeln!(w, "export interface {}Result {{\n  items: {p}Item[];\n  loading: boolean;\n  error: Error | null;\n  reload: () => Promise<void>;\n  byId: Map<string, {p}Item>;\n}}\n", pascal(name));
    let fetch = if has_api {
        format!("await list{p}(options.query ?? {{}})")
    } else {
        "{ items: [] as Item[] }".replace("Item", &format!("{p}Item"))
    };
    let _ = writeln!(
        w,
        "export function {name}(options: {P}Options = {{}}): {P}Result {{\n  const {{ enabled = true, debounceMs = {d}, onError }} = options;\n  const [items, setItems] = useState<{p}Item[]>([]);\n  const [loading, setLoading] = useState(false);\n  const [error, setError] = useState<Error | null>(null);\n  const mounted = useRef(true);\n  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);\n\n  useEffect(() => {{\n    mounted.current = true;\n    return () => {{\n      mounted.current = false;\n      if (timer.current) clearTimeout(timer.current);\n    }};\n  }}, []);\n\n  const reload = useCallback(async () => {{\n    if (!enabled) return;\n    setLoading(true);\n    try {{\n      const page = {fetch};\n      if (mounted.current) {{\n        setItems(page.items);\n        setError(null);\n      }}\n    }} catch (cause) {{\n      const err = cause instanceof Error ? cause : new Error(String(cause));\n      if (mounted.current) setError(err);\n      onError?.(err);\n    }} finally {{\n      if (mounted.current) setLoading(false);\n    }}\n  }}, [enabled, onError, options.query]);\n\n  useEffect(() => {{\n    if (timer.current) clearTimeout(timer.current);\n    timer.current = setTimeout(() => {{\n      void reload();\n    }}, debounceMs);\n  }}, [reload, debounceMs]);\n\n  const byId = useMemo(() => {{\n    const map = new Map<string, {p}Item>();\n    for (const item of items) {{\n      map.set(item.id, item);\n    }}\n    return map;\n  }}, [items]);\n\n  return {{ items, loading, error, reload, byId }};\n}}\n",
        P = pascal(name),
        d = rng.range(0, 400),
    );
    for k in 0..rng.range(2, 4) {
        let _ = writeln!(
            w,
            "export function {name}Derived{k}(items: readonly {p}Item[], predicate: (item: {p}Item) => boolean = () => true) {{\n  return useMemo(() => {{\n    const kept = items.filter(predicate);\n    const counts: Record<string, number> = {{}};\n    for (const item of kept) {{\n      counts[item.status] = (counts[item.status] ?? 0) + 1;\n    }}\n    return {{ kept, counts, total: kept.length }};\n  }}, [items, predicate]);\n}}\n"
        );
    }
}

pub(super) fn util(w: &mut String, f: &Feature, name: &str, rng: &mut Rng) {
    let p = &f.pascal;
    let _ = writeln!(w, "import type {{ {p}Item, {p}Status }} from \"../types\";\n");
    let _ = writeln!(w, "/** The primary helper of utils/{name}. */\nexport function {}{p}(value: unknown): string {{\n  if (value === null || value === undefined) return \"—\";\n  if (typeof value === \"number\") return value.toLocaleString(\"en-US\", {{ maximumFractionDigits: 2 }});\n  if (value instanceof Date) return value.toISOString();\n  return String(value).trim();\n}}\n", camel(name));
    let templates = [
        "export function sortBy{K}<T extends {P}Item>(items: readonly T[], key: keyof T, direction: 1 | -1 = 1): T[] {\n  return [...items].sort((a, b) => {\n    const x = a[key];\n    const y = b[key];\n    if (x === y) return 0;\n    if (x === null || x === undefined) return 1;\n    if (y === null || y === undefined) return -1;\n    return x < y ? -direction : direction;\n  });\n}\n",
        "export function groupBy{K}<T>(items: readonly T[], key: (item: T) => string): Record<string, T[]> {\n  const out: Record<string, T[]> = {};\n  for (const item of items) {\n    const k = key(item);\n    (out[k] ??= []).push(item);\n  }\n  return out;\n}\n",
        "export function clamp{K}(value: number, min: number, max: number): number {\n  return Math.min(max, Math.max(min, Number.isFinite(value) ? value : min));\n}\n",
        "export function debounce{K}<A extends unknown[]>(fn: (...args: A) => void, ms: number): (...args: A) => void {\n  let timer: ReturnType<typeof setTimeout> | undefined;\n  return (...args: A) => {\n    if (timer) clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), ms);\n  };\n}\n",
        "export function statusLabel{K}(status: {P}Status): string {\n  switch (status) {\n    default:\n      return status.charAt(0).toUpperCase() + status.slice(1);\n  }\n}\n",
        "export function toCsv{K}(items: readonly {P}Item[]): string {\n  const header = [\"id\", \"name\", \"status\", \"updatedAt\"].join(\",\");\n  const rows = items.map((item) => [item.id, JSON.stringify(item.name), item.status, item.updatedAt ?? \"\"].join(\",\"));\n  return [header, ...rows].join(\"\\n\");\n}\n",
        "export function matches{K}(item: {P}Item, query: string): boolean {\n  const q = query.trim().toLowerCase();\n  if (!q) return true;\n  return item.name.toLowerCase().includes(q) || item.tags.some((tag) => tag.toLowerCase().startsWith(q));\n}\n",
        "export function diff{K}(before: {P}Item, after: {P}Item): Array<keyof {P}Item> {\n  const keys = new Set([...Object.keys(before), ...Object.keys(after)]) as Set<keyof {P}Item>;\n  return [...keys].filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));\n}\n",
        "export const formatDate{K} = (iso: string | null, locale = \"en-US\"): string =>\n  iso ? new Intl.DateTimeFormat(locale, { dateStyle: \"medium\", timeStyle: \"short\" }).format(new Date(iso)) : \"never\";\n",
        "export function isValidId{K}(id: string): boolean {\n  return /^[a-z]{2}[0-9]+_[a-z0-9]{6,}$/.test(id);\n}\n",
        "export function paginate{K}<T>(items: readonly T[], page: number, size: number): { rows: T[]; pages: number } {\n  const pages = Math.max(1, Math.ceil(items.length / size));\n  const current = Math.min(Math.max(page, 1), pages);\n  return { rows: items.slice((current - 1) * size, current * size), pages };\n}\n",
        "export function mergeById{K}(a: readonly {P}Item[], b: readonly {P}Item[]): {P}Item[] {\n  const map = new Map(a.map((item) => [item.id, item] as const));\n  for (const item of b) {\n    map.set(item.id, { ...map.get(item.id), ...item });\n  }\n  return [...map.values()];\n}\n",
    ];
    let n = rng.range(7, 13);
    for k in 0..n {
        let t = rng.pick(&templates);
        let _ = writeln!(w, "{}", t.replace("{K}", &format!("{}{k}", pascal(name))).replace("{P}", p));
    }
}

/// A component (and its contract when `contract`); returns the number of contracts.
#[allow(clippy::too_many_arguments)]
pub(super) fn component(
    w: &mut String,
    plan: &Plan,
    fi: usize,
    name: &str,
    entity: &str,
    contract: bool,
    min_lines: usize,
    rng: &mut Rng,
) -> usize {
    let f = &plan.features[fi];
    let (p, u) = (&f.pascal, &f.upper);
    let hooks = plan.hooks(fi);
    let utils = plan.utils(fi);
    let ui = plan.ui();
    let has_constants = plan.feature_has(fi, &Kind::Constants);
    w.push_str("import { useCallback, useEffect, useMemo, useReducer, useState } from \"react\";\n");
    if contract {
        w.push_str("import {\n  actionContract,\n  defineAgentComponentContract,\n  emptyObjectSchema,\n  fromJsonSchema,\n  fromStandardSchema,\n  observationContract,\n} from \"@agent-surface/core\";\nimport { z } from \"zod\";\n");
        let _ = writeln!(w, "import {{ {u}_ID, {u}_SORT_COLUMNS, {p}OpenInput, {p}Row }} from \"@/shared/schemas\";");
        let _ = writeln!(w, "import {{ {p}FilterInput, {p}SortInput }} from \"@/shared/zod\";");
        if has_constants {
            let _ = writeln!(w, "import {{ {u}_MAX_SELECTION, {u}_PAGE_SIZE }} from \"../constants\";");
        }
    }
    let used_ui: Vec<&str> = rng.sample(&ui, 2);
    for x in &used_ui {
        let _ = writeln!(w, "import {{ {x} }} from \"@/shared/ui/{x}\";");
    }
    let hook = hooks.first().cloned();
    if let Some(h) = &hook {
        let _ = writeln!(w, "import {{ {h} }} from \"../hooks/{h}\";");
    }
    let used_utils: Vec<&str> = rng.sample(&utils, 2);
    for x in &used_utils {
        let _ = writeln!(w, "import {{ {}{p} }} from \"../utils/{x}\";", camel(x));
    }
    let _ = writeln!(w, "import type {{ {p}Item, {p}Status }} from \"../types\";\n");

    let mut contracts = 0;
    if contract {
        contracts = 1;
        let (max_sel, page) = if has_constants {
            (format!("{u}_MAX_SELECTION"), format!("{u}_PAGE_SIZE"))
        } else {
            ("50".into(), "100".into())
        };
        let kebab = format!("{}-{}", entity, name.chars().filter(|c| c.is_ascii_digit()).collect::<String>());
        let _ = writeln!(
            w,
            "const selectionSchema = fromJsonSchema({{\n  type: \"object\",\n  properties: {{\n    ids: {{ type: \"array\", items: {u}_ID, maxItems: {max_sel}, uniqueItems: true }},\n  }},\n  required: [\"ids\"],\n  additionalProperties: false,\n}});\n"
        );
        let _ = writeln!(
            w,
            "export const {}Contract = defineAgentComponentContract({{\n  type: \"{}.{kebab}\",\n  description:\n    \"{} the {} {entity}. Read what is visible and selected; select rows, sort and filter the view.\",\n  priority: {},\n  tags: [\"{}\", \"{entity}\"],\n  meta: {{ columns: [...{u}_SORT_COLUMNS] }},\n  observations: {{\n    readState: observationContract({{\n      description: \"Visible rows, in display order, with the current sort and filter.\",\n      output: fromJsonSchema({{\n        type: \"object\",\n        properties: {{\n          rows: {{ type: \"array\", items: {p}Row, maxItems: {page} }},\n          sort: {{ enum: [...{u}_SORT_COLUMNS] }},\n          filter: {{ type: \"string\" }},\n        }},\n        required: [\"rows\", \"sort\", \"filter\"],\n        additionalProperties: false,\n      }}),\n    }}),\n    readSelection: observationContract({{\n      description: \"Ids of the selected rows.\",\n      output: selectionSchema,\n    }}),\n  }},\n  actions: {{\n    selectRows: actionContract({{\n      description: `Select up to ${{{max_sel}}} rows by id, replacing the selection.`,\n      input: selectionSchema,\n      effect: \"local-state\",\n      idempotent: true,\n    }}),\n    clearSelection: actionContract({{\n      description: \"Clear the selection.\",\n      input: emptyObjectSchema,\n      effect: \"local-state\",\n      idempotent: true,\n    }}),\n    sortBy: actionContract({{\n      description: \"Sort the rows by a column.\",\n      input: fromStandardSchema({p}SortInput, {{ jsonSchema: z.toJSONSchema({p}SortInput, {{ io: \"input\" }}) }}),\n      effect: \"local-state\",\n    }}),\n    filter: actionContract({{\n      description: \"Show only rows whose name contains the text, optionally with one status.\",\n      input: fromStandardSchema({p}FilterInput, {{ jsonSchema: z.toJSONSchema({p}FilterInput, {{ io: \"input\" }}) }}),\n      effect: \"local-state\",\n      audit: \"full\",\n    }}),",
            camel(name),
            f.name,
            rng.pick(VERBS),
            f.name,
            rng.range(0, 20),
            f.name,
        );
        if rng.chance(60) {
            let _ = writeln!(w, "    openDetail: actionContract({{\n      description: \"Open the detail page of one row.\",\n      input: fromJsonSchema({p}OpenInput),\n      effect: \"navigation\",\n    }}),");
        }
        w.push_str("  },\n});\n\n");
    }

    // Props, local types and helpers.
    let _ = writeln!(w, "export interface {name}Props {{\n  title?: string;\n  initialFilter?: string;\n  compact?: boolean;\n  onSelect?: (item: {p}Item) => void;\n  onStatusChange?: (id: string, status: {p}Status) => void;");
    for field in f.extra_fields.iter().take(rng.range(1, 4)) {
        let _ = writeln!(w, "  show{}?: boolean;", pascal(field));
    }
    w.push_str("}\n\n");
    let _ = writeln!(w, "type SortKey = \"name\" | \"status\" | \"updatedAt\";\n\ntype ViewState = {{ sort: SortKey; direction: 1 | -1; page: number }};\n\ntype ViewAction = {{ type: \"sort\"; key: SortKey }} | {{ type: \"page\"; page: number }} | {{ type: \"reset\" }};\n");
    let _ = writeln!(
        w,
        "function viewReducer(state: ViewState, action: ViewAction): ViewState {{\n  switch (action.type) {{\n    case \"sort\":\n      return state.sort === action.key ? {{ ...state, direction: state.direction === 1 ? -1 : 1 }} : {{ ...state, sort: action.key, direction: 1 }};\n    case \"page\":\n      return {{ ...state, page: Math.max(0, action.page) }};\n    case \"reset\":\n      return {{ sort: \"name\", direction: 1, page: 0 }};\n  }}\n}}\n\nfunction compareItems(a: {p}Item, b: {p}Item, key: SortKey, direction: 1 | -1): number {{\n  const x = a[key] ?? \"\";\n  const y = b[key] ?? \"\";\n  return x < y ? -direction : x > y ? direction : 0;\n}}\n"
    );

    // The component.
    let _ = writeln!(w, "export function {name}({{ title = \"{}\", initialFilter = \"\", compact = false, onSelect, onStatusChange }}: {name}Props) {{", pascal(entity));
    match &hook {
        Some(h) => {
            let _ = writeln!(
                w,
                "  const {{ items, loading, error, reload }} = {h}({{ query: {{ pageSize: {} }} }});",
                rng.range(10, 100)
            );
        }
        None => {
            let _ = writeln!(w, "  const [items] = useState<{p}Item[]>([]);\n  const loading = false;\n  const error: Error | null = null;\n  const reload = useCallback(async () => {{}}, []);");
        }
    }
    w.push_str("  const [filter, setFilter] = useState(initialFilter);\n  const [selected, setSelected] = useState<Set<string>>(() => new Set());\n  const [view, dispatch] = useReducer(viewReducer, { sort: \"name\", direction: 1, page: 0 });\n");
    w.push_str("  const visible = useMemo(\n    () =>\n      items\n        .filter((item) => item.name.toLowerCase().includes(filter.trim().toLowerCase()))\n        .sort((a, b) => compareItems(a, b, view.sort, view.direction)),\n    [items, filter, view.sort, view.direction],\n  );\n");
    w.push_str("  useEffect(() => {\n    if (error) {\n      console.warn(\"could not load\", error);\n    }\n  }, [error]);\n");
    w.push_str("  const toggle = useCallback((id: string) => {\n    setSelected((previous) => {\n      const next = new Set(previous);\n      if (next.has(id)) {\n        next.delete(id);\n      } else {\n        next.add(id);\n      }\n      return next;\n    });\n  }, []);\n");
    for k in 0..rng.range(2, 5) {
        let status = rng.pick(&f.statuses);
        let _ = writeln!(w, "  const mark{}{k} = useCallback(() => {{\n    for (const id of selected) {{\n      onStatusChange?.(id, \"{status}\");\n    }}\n    setSelected(new Set());\n  }}, [selected, onStatusChange]);", pascal(status));
    }
    if rng.chance(60) {
        w.push_str("  useEffect(() => {\n    const onKey = (event: KeyboardEvent) => {\n      if (event.key === \"Escape\") {\n        setSelected(new Set());\n      } else if (event.key === \"a\" && (event.metaKey || event.ctrlKey)) {\n        event.preventDefault();\n        setSelected(new Set(visible.map((item) => item.id)));\n      }\n    };\n    window.addEventListener(\"keydown\", onKey);\n    return () => window.removeEventListener(\"keydown\", onKey);\n  }, [visible]);\n");
    }
    let fmt = used_utils.first().map(|x| format!("{}{p}", camel(x)));
    let cell = |v: &str| match &fmt {
        Some(fmt) => format!("{{{fmt}({v})}}"),
        None => format!("{{String({v})}}"),
    };
    let button = if used_ui.contains(&"Button") { "Button" } else { "button" };
    w.push_str("\n  if (loading && items.length === 0) {\n");
    if used_ui.contains(&"Spinner") {
        w.push_str("    return <Spinner label=\"Loading\" />;\n");
    } else {
        w.push_str("    return <p className=\"loading\">Loading…</p>;\n");
    }
    w.push_str("  }\n\n  return (\n");
    let _ = writeln!(
        w,
        "    <section className={{`{}-{} ${{compact ? \"is-compact\" : \"\"}}`}} aria-busy={{loading}}>",
        f.name, entity
    );
    let _ = writeln!(w, "      <header className=\"section-header\">\n        <h2>{{title}}</h2>\n        <input\n          type=\"search\"\n          value={{filter}}\n          placeholder=\"Filter\"\n          onChange={{(event) => setFilter(event.target.value)}}\n        />\n        <{button} onClick={{() => void reload()}}>Refresh</{button}>\n        <{button} onClick={{() => dispatch({{ type: \"reset\" }})}}>Reset</{button}>\n      </header>");
    w.push_str("      {error ? (\n        <p role=\"alert\" className=\"error\">\n          {String(error)}\n        </p>\n      ) : null}\n");
    match rng.below(3) {
        0 => {
            w.push_str("      <table>\n        <thead>\n          <tr>\n            <th />\n");
            for col in ["name", "status", "updatedAt"] {
                let _ = writeln!(w, "            <th onClick={{() => dispatch({{ type: \"sort\", key: \"{col}\" }})}} aria-sort={{view.sort === \"{col}\" ? (view.direction === 1 ? \"ascending\" : \"descending\") : \"none\"}}>\n              {}\n            </th>", pascal(col));
            }
            w.push_str("          </tr>\n        </thead>\n        <tbody>\n          {visible.map((item) => (\n            <tr key={item.id} className={selected.has(item.id) ? \"selected\" : undefined} onClick={() => onSelect?.(item)}>\n              <td>\n                <input type=\"checkbox\" checked={selected.has(item.id)} onChange={() => toggle(item.id)} />\n              </td>\n");
            let _ = writeln!(
                w,
                "              <td>{}</td>\n              <td>{}</td>\n              <td>{}</td>",
                cell("item.name"),
                cell("item.status"),
                cell("item.updatedAt")
            );
            w.push_str("            </tr>\n          ))}\n        </tbody>\n      </table>\n");
        }
        1 => {
            w.push_str("      <ul className=\"cards\">\n        {visible.map((item) => (\n          <li key={item.id} className=\"card\">\n            <label>\n              <input type=\"checkbox\" checked={selected.has(item.id)} onChange={() => toggle(item.id)} />\n");
            let _ = writeln!(w, "              <strong>{}</strong>\n            </label>\n            <span className={{`status status--${{item.status}}`}}>{}</span>", cell("item.name"), cell("item.status"));
            w.push_str("            {item.tags.length > 0 && (\n              <ul className=\"tags\">\n                {item.tags.map((tag) => (\n                  <li key={tag}>{tag}</li>\n                ))}\n              </ul>\n            )}\n            <button type=\"button\" onClick={() => onSelect?.(item)}>\n              Open\n            </button>\n          </li>\n        ))}\n      </ul>\n");
        }
        _ => {
            w.push_str("      <form\n        className=\"editor\"\n        onSubmit={(event) => {\n          event.preventDefault();\n          void reload();\n        }}\n      >\n");
            for field in f.extra_fields.iter().take(4) {
                let _ = writeln!(w, "        <label className=\"field\">\n          <span>{}</span>\n          <input name=\"{field}\" defaultValue={{visible[0] ? String(visible[0].{field} ?? \"\") : \"\"}} disabled={{loading}} />\n        </label>", pascal(field));
            }
            w.push_str("        <button type=\"submit\" disabled={loading}>\n          Save\n        </button>\n      </form>\n");
        }
    }
    let _ = writeln!(w, "      <footer>\n        <span>\n          {{visible.length}} of {{items.length}} shown, {{selected.size}} selected\n        </span>\n        <{button} onClick={{() => dispatch({{ type: \"page\", page: view.page - 1 }})}}>Previous</{button}>\n        <{button} onClick={{() => dispatch({{ type: \"page\", page: view.page + 1 }})}}>Next</{button}>\n      </footer>\n    </section>\n  );\n}}\n");

    // Sub-components: size varies as in real code; the check target grows to its line count.
    let mut k = 0;
    let extra = rng.range(1, 5);
    while k < extra || w.lines().count() < min_lines {
        let field = rng.pick(&f.extra_fields);
        let _ = writeln!(
            w,
            "function {name}Row{k}({{ item, active, onToggle }}: {{ item: {p}Item; active: boolean; onToggle: (id: string) => void }}) {{\n  const [hover, setHover] = useState(false);\n  const label = useMemo(() => `${{item.name}} (${{item.status}})`, [item.name, item.status]);\n  return (\n    <div\n      className={{[\"row\", active ? \"is-active\" : \"\", hover ? \"is-hover\" : \"\"].join(\" \")}}\n      onMouseEnter={{() => setHover(true)}}\n      onMouseLeave={{() => setHover(false)}}\n    >\n      <button type=\"button\" aria-pressed={{active}} onClick={{() => onToggle(item.id)}}>\n        {{label}}\n      </button>\n      <span className=\"{field}\">{{String(item.{field} ?? \"\")}}</span>\n      {{item.updatedAt ? <time dateTime={{item.updatedAt}}>{{item.updatedAt.slice(0, 10)}}</time> : <em>never</em>}}\n    </div>\n  );\n}}\n"
        );
        k += 1;
    }
    let _ = writeln!(w, "export default {name};");
    contracts
}

// ---------------------------------------------------------------------------------------------
// Injection mode (`--inject N`): the schemas of a real app, and contracts spliced into files
// ---------------------------------------------------------------------------------------------

/// Features with a recursive category schema (a getter: zod's `$defs` for cycles).
fn has_category(fi: usize) -> bool {
    fi % 4 == 0
}

/// The shared zod module's richer schemas in injection mode: rows, pages, patches, events, a
/// link to the previous feature's ids, and (every fourth feature) a recursive category tree.
pub(super) fn shared_zod_app(w: &mut String, plan: &Plan, fi: usize, rng: &mut Rng) {
    let f = &plan.features[fi];
    let (p, n) = (&f.pascal, &f.name);
    let prev = fi.checked_sub(1).filter(|&j| plan.feature_has(j, &Kind::SharedZod)).map(|j| &plan.features[j]);
    let _ = writeln!(w, "\n// The app's own schemas: rows, pages, patches and events of the {n} feature.");
    if let Some(q) = prev {
        let _ = writeln!(w, "import {{ {}IdZ }} from \"./{}\";\n", q.pascal, q.name);
    }
    let statuses: Vec<String> = f.statuses.iter().map(|s| format!("\"{s}\"")).collect();
    let _ = writeln!(w, "export const {p}Tag = z.string().min(1).max({});\n", rng.range(24, 64));
    let _ = writeln!(
        w,
        "export const {p}RowZ = z\n  .object({{\n    id: {p}IdZ,\n    name: z.string().min(1).max({}),\n    status: z.enum([{}]),\n    owner: z.email().nullable(),\n    updatedAt: z.iso.datetime().nullable(),\n    tags: z.array({p}Tag).max(10).default([]),\n    {}: z.number().int().nonnegative().optional(),\n    {}: z.string().max({}).optional(),\n  }})\n  .describe(\"One row of the {n} table\");\n",
        rng.range(80, 200),
        statuses.join(", "),
        f.extra_fields[0],
        f.extra_fields[1],
        rng.range(40, 160),
    );
    let _ = writeln!(
        w,
        "export const {p}PageZ = z\n  .object({{\n    rows: z.array({p}RowZ).max({}),\n    total: z.number().int().min(0),\n    cursor: z.string().nullable(),\n  }})\n  .meta({{ title: \"{p} page\" }});\n",
        rng.range(50, 200)
    );
    let _ = writeln!(w, "export const {p}PageJson = z.toJSONSchema({p}PageZ);\n");
    let _ = writeln!(
        w,
        "export const {p}PatchInput = {p}RowZ.pick({{ name: true, status: true, tags: true }}).partial().strict();\n"
    );
    let _ = writeln!(
        w,
        "export const {p}Event = z.union([\n  z.object({{ type: z.literal(\"created\"), row: {p}RowZ }}),\n  z.object({{ type: z.literal(\"updated\"), id: {p}IdZ, patch: {p}PatchInput }}),\n  z.object({{ type: z.literal(\"removed\"), id: {p}IdZ }}),\n]);\n"
    );
    let _ = writeln!(
        w,
        "export const {p}Summary = {p}Job.extend({{\n  rows: z.number().int().min(0),\n  warnings: z.array(z.string().max(200)).max({}),\n}});\n",
        rng.range(5, 50)
    );
    if let Some(q) = prev {
        let _ = writeln!(
            w,
            "export const {p}Link = z.strictObject({{\n  from: {p}IdZ,\n  to: {}IdZ,\n  label: z.string().max(40).optional(),\n}});\n",
            q.pascal
        );
    }
    if has_category(fi) {
        let _ = writeln!(
            w,
            "export const {p}Category = z.object({{\n  name: z.string().max(60),\n  get children() {{\n    return z.array({p}Category).max(20);\n  }},\n}});\n\nexport const {p}CategoryTree = z.object({{ root: {p}Category, depth: z.number().int().min(1).max(8) }});\n"
        );
    }
}

/// How a contract file imports the shared zod schemas: through the barrel, the module itself
/// behind the `@/*` alias, or a relative path to the barrel.
fn zod_source(f: &Feature, rng: &mut Rng, depth: usize) -> String {
    match rng.below(4) {
        0 | 1 => "@/shared/zod".to_string(),
        2 => format!("@/shared/zod/{}", f.name),
        _ => format!("{}shared/zod", "../".repeat(depth)),
    }
}

/// A component contract built from the shared schemas: 1–3 observations and 1–3 actions.
/// Returns (imports, contract).
pub(super) fn injected_component(plan: &Plan, fi: usize, name: &str, entity: &str, rng: &mut Rng) -> (String, String) {
    let f = &plan.features[fi];
    let (p, u, n) = (&f.pascal, &f.upper, &f.name);
    let has_constants = plan.feature_has(fi, &Kind::Constants);
    let prev = fi.checked_sub(1).filter(|&j| plan.feature_has(j, &Kind::SharedZod)).is_some();
    let c = camel(name);
    let (max_sel, page) = if has_constants {
        (format!("{u}_MAX_SELECTION"), format!("{u}_PAGE_SIZE"))
    } else {
        ("50".into(), "100".into())
    };

    let mut observations: Vec<(&str, String)> = vec![
        ("readPage", if rng.chance(50) {
            format!("fromStandardSchema({p}PageZ, {{ jsonSchema: {p}PageJson }})")
        } else {
            format!("fromStandardSchema({p}PageZ, {{ jsonSchema: z.toJSONSchema({p}PageZ) }})")
        }),
        ("readSelection", format!("{c}Selection")),
        ("readFilter", format!("fromStandardSchema({p}FilterInput, {{ jsonSchema: z.toJSONSchema({p}FilterInput, {{ io: \"output\" }}) }})")),
        ("readEvents", format!("fromStandardSchema({c}Events, {{ jsonSchema: z.toJSONSchema({c}Events) }})")),
        ("readRows", format!("fromJsonSchema({{\n        type: \"object\",\n        properties: {{ rows: {{ type: \"array\", items: {p}Row, maxItems: {page} }}, sort: {{ enum: [...{u}_SORT_COLUMNS] }} }},\n        required: [\"rows\"],\n        additionalProperties: false,\n      }})")),
    ];
    if has_category(fi) {
        observations.push((
            "readCategories",
            format!("fromStandardSchema({p}CategoryTree, {{ jsonSchema: z.toJSONSchema({p}CategoryTree) }})"),
        ));
    }
    let mut actions: Vec<(&str, String, &str)> = vec![
        ("sortBy", format!("fromStandardSchema({p}SortInput, {{ jsonSchema: z.toJSONSchema({p}SortInput, {{ io: \"input\" }}) }})"), "local-state"),
        ("filter", format!("fromStandardSchema({p}FilterInput, {{ jsonSchema: z.toJSONSchema({p}FilterInput, {{ io: \"input\" }}) }})"), "local-state"),
        ("selectRows", format!("{c}Selection"), "local-state"),
        ("clearSelection", "emptyObjectSchema".into(), "local-state"),
        ("openDetail", format!("fromJsonSchema({p}OpenInput)"), "navigation"),
        ("editDraft", format!("fromStandardSchema({p}PatchInput, {{ jsonSchema: z.toJSONSchema({p}PatchInput, {{ io: \"input\" }}) }})"), "local-state"),
    ];
    if prev {
        actions.push((
            "followLink",
            format!("fromStandardSchema({p}Link, {{ jsonSchema: z.toJSONSchema({p}Link, {{ io: \"input\" }}) }})"),
            "navigation",
        ));
    }
    let k_obs = rng.range(1, 3);
    let k_act = rng.range(1, 3);
    let observations = rng.sample(&observations, k_obs);
    let actions = rng.sample(&actions, k_act);
    let text_of = |xs: &[String]| xs.join("\n");
    let all: String = text_of(
        &observations.iter().map(|o| o.1.clone()).chain(actions.iter().map(|a| a.1.clone())).collect::<Vec<_>>(),
    );
    let uses = |s: &str| all.contains(s);

    // Imports: only what the contract uses.
    let mut core = vec!["defineAgentComponentContract", "observationContract"];
    if !actions.is_empty() {
        core.push("actionContract");
    }
    for (name, needle) in [
        ("emptyObjectSchema", "emptyObjectSchema"),
        ("fromJsonSchema", "fromJsonSchema("),
        ("fromStandardSchema", "fromStandardSchema("),
    ] {
        if uses(needle) || (name == "fromJsonSchema" && uses(&format!("{c}Selection"))) {
            core.push(name);
        }
    }
    if uses(&format!("{c}Events")) && !core.contains(&"fromStandardSchema") {
        core.push("fromStandardSchema");
    }
    core.sort_unstable();
    let mut imports = format!("import {{ {} }} from \"@agent-surface/core\";\n", core.join(", "));
    if uses("z.toJSONSchema") || uses(&format!("{c}Events")) {
        imports.push_str("import { z } from \"zod\";\n");
    }
    let mut zod_names: Vec<String> = Vec::new();
    for s in ["PageZ", "PageJson", "FilterInput", "SortInput", "PatchInput", "CategoryTree", "Link"] {
        if uses(&format!("{p}{s}")) {
            zod_names.push(format!("{p}{s}"));
        }
    }
    if uses(&format!("{c}Events")) {
        zod_names.push(format!("{p}Event"));
    }
    if !zod_names.is_empty() {
        let _ = writeln!(imports, "import {{ {} }} from \"{}\";", zod_names.join(", "), zod_source(f, rng, 3));
    }
    let mut schema_names: Vec<String> = Vec::new();
    if uses(&format!("{c}Selection")) {
        schema_names.push(format!("{u}_ID"));
    }
    for s in ["_SORT_COLUMNS", "OpenInput", "Row,"] {
        let needle = if s.starts_with('_') { format!("{u}{s}") } else { format!("{p}{s}") };
        if uses(&needle) || (s == "Row," && uses(&format!("items: {p}Row"))) {
            schema_names.push(needle.trim_end_matches(',').to_string());
        }
    }
    schema_names.dedup();
    if !schema_names.is_empty() {
        let _ = writeln!(imports, "import {{ {} }} from \"@/shared/schemas\";", schema_names.join(", "));
    }
    if has_constants && (uses(&format!("{c}Selection")) || uses(&page)) {
        let _ = writeln!(imports, "import {{ {u}_MAX_SELECTION, {u}_PAGE_SIZE }} from \"../constants\";");
    }

    // Local constants, then the contract.
    let mut w = String::new();
    if uses(&format!("{c}Selection")) {
        let _ = writeln!(
            w,
            "const {c}Selection = fromJsonSchema({{\n  type: \"object\",\n  properties: {{\n    ids: {{ type: \"array\", items: {u}_ID, maxItems: {max_sel}, uniqueItems: true }},\n  }},\n  required: [\"ids\"],\n  additionalProperties: false,\n}});\n"
        );
    }
    if uses(&format!("{c}Events")) {
        let _ =
            writeln!(w, "const {c}Events = z.object({{ events: z.array({p}Event).max({}) }});\n", rng.range(10, 100));
    }
    let kebab = format!("{}-{}", entity, name.chars().filter(|ch| ch.is_ascii_digit()).collect::<String>());
    let _ = writeln!(
        w,
        "export const {c}Contract = defineAgentComponentContract({{\n  type: \"{n}.{kebab}\",\n  description: \"{} the {n} {entity}: what is visible and selected, and what can be done with it.\",\n  priority: {},\n  tags: [\"{n}\", \"{entity}\"],\n  observations: {{",
        rng.pick(VERBS),
        rng.range(0, 20)
    );
    for (name, schema) in &observations {
        let _ = writeln!(w, "    {name}: observationContract({{\n      description: \"The {entity}'s {}.\",\n      output: {schema},\n    }}),", name.trim_start_matches("read").to_lowercase());
    }
    w.push_str("  },\n  actions: {\n");
    for (name, schema, effect) in &actions {
        let extra = if rng.chance(30) { "\n      idempotent: true," } else { "" };
        let _ = writeln!(w, "    {name}: actionContract({{\n      description: \"{} in the {entity}.\",\n      input: {schema},\n      effect: \"{effect}\",{extra}\n    }}),", pascal(name));
    }
    w.push_str("  },\n});\n\n");
    (imports, w)
}

/// Procedures and an external tool of an API module, built from the shared schemas. Returns
/// (text, number of contracts).
pub(super) fn injected_procedures(plan: &Plan, fi: usize, rng: &mut Rng) -> (String, usize) {
    let f = &plan.features[fi];
    let (p, n) = (&f.pascal, &f.name);
    let mut w = String::new();
    let _ = writeln!(
        w,
        "import {{ defineAgentProcedureContract, defineExternalAgentToolContract, fromStandardSchema }} from \"@agent-surface/core\";\nimport * as z from \"zod\";\nimport {{ {p}Event, {p}PatchInput, {p}RowZ, {p}Summary }} from \"{}\";\n",
        zod_source(f, rng, 2)
    );
    let _ = writeln!(
        w,
        "const {p}EventsOutput = z.object({{ events: z.array({p}Event).max({}), cursor: z.string().nullable() }});\n",
        rng.range(20, 200)
    );
    let _ = writeln!(
        w,
        "export const patch{p}Procedure = defineAgentProcedureContract({{\n  id: \"domain:{n}.patch\",\n  description: \"Patch one {n} record: name, status or tags.\",\n  input: fromStandardSchema({p}PatchInput, {{ jsonSchema: z.toJSONSchema({p}PatchInput, {{ io: \"input\" }}) }}),\n  output: fromStandardSchema({p}RowZ, {{ jsonSchema: z.toJSONSchema({p}RowZ) }}),\n  effect: \"mutation\",\n  tags: [\"{n}\"],\n}});\n"
    );
    let _ = writeln!(
        w,
        "export const events{p}Procedure = defineAgentProcedureContract({{\n  id: \"domain:{n}.events\",\n  description: \"The latest {n} events, newest first.\",\n  input: fromStandardSchema(z.strictObject({{}}), {{ jsonSchema: z.toJSONSchema(z.strictObject({{}}), {{ io: \"input\" }}) }}),\n  output: fromStandardSchema({p}EventsOutput, {{ jsonSchema: z.toJSONSchema({p}EventsOutput) }}),\n  effect: \"read\",\n}});\n"
    );
    let _ = writeln!(
        w,
        "export const summarize{p}Tool = defineExternalAgentToolContract({{\n  id: \"external:{n}.summarize\",\n  description: \"Build the {n} summary report and send it to the team.\",\n  input: fromStandardSchema({p}PatchInput, {{ jsonSchema: z.toJSONSchema({p}PatchInput, {{ io: \"input\" }}) }}),\n  output: fromStandardSchema({p}Summary, {{ jsonSchema: z.toJSONSchema({p}Summary) }}),\n  effect: \"external-side-effect\",\n  confirmation: \"required\",\n}});"
    );
    (w, 3)
}
