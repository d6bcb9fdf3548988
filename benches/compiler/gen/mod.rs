//! A deterministic generator of a synthetic TypeScript/React project for the compiler bench.
//!
//! The project looks like a feature-sliced React app: per feature, components (hooks, JSX,
//! props, handlers), hooks, utils, types, constants, an API module, a store and barrels; shared
//! UI components; shared literal JSON Schemas (`src/shared/schemas/*`) and zod schemas
//! (`src/shared/zod/*`) re-exported through `export *` barrels. About 5 % of the files declare
//! contracts with `@agent-surface/core`: component contracts (literal schemas built from
//! imported consts, zod schemas through `fromStandardSchema(X, { jsonSchema: z.toJSONSchema(X,
//! { io: "input" }) })`, constants of a plain module) and procedure/external-tool contracts.
//! Only constructs the compiler supports are used (docs/schemas.md), so the project compiles
//! clean and its manifest is complete.
//!
//! Same seed and file count → same bytes: a splitmix64 generator per file, nothing read from
//! the environment, no hash-map iteration.

mod files;

use files::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What to generate.
#[derive(Clone, Debug)]
pub struct GenOptions {
    pub files: usize,
    pub seed: u64,
    /// Lines of the designated single-file `check` target (the first component contract).
    pub check_file_lines: usize,
    /// Injection mode (`--inject N`): the tree is generated without contracts, its shared zod
    /// modules carry the richer schema set of a real app, and contracts are injected into N of
    /// its existing files (mostly components, some API modules with procedures). The files that
    /// get no contract are byte-identical whatever N is, so N = 0 is the tree's own floor.
    pub inject: Option<usize>,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions { files: 3000, seed: 0x005e_eda9_e75e_face, check_file_lines: 500, inject: None }
    }
}

/// What was generated.
#[derive(Clone, Debug)]
pub struct GenSummary {
    pub root: PathBuf,
    pub files: usize,
    pub bytes: u64,
    /// Files that declare contracts (import `@agent-surface/core`).
    pub contract_files: usize,
    /// Contracts the manifest must hold.
    pub contracts: usize,
    /// blake3 over every (path, bytes), in path order: same seed → same hash.
    pub hash: String,
    /// A ~`check_file_lines`-line component contract file (the single-file check target).
    pub check_file: PathBuf,
    /// A component contract file and a plain component file (the warm recompile targets).
    pub contract_file: PathBuf,
    pub plain_file: PathBuf,
    /// The shared zod module every `@/shared/zod` barrel lookup passes through (the first one
    /// the barrel re-exports): what the language-server bench saves to measure a shared edit.
    pub shared_file: PathBuf,
}

// ---------------------------------------------------------------------------------------------
// Random numbers
// ---------------------------------------------------------------------------------------------

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    /// `k` distinct elements, in their original order.
    pub fn sample<T: Clone>(&mut self, xs: &[T], k: usize) -> Vec<T> {
        let mut idx: Vec<usize> = (0..xs.len()).collect();
        for i in 0..idx.len() {
            let j = i + self.below(idx.len() - i);
            idx.swap(i, j);
        }
        let mut chosen: Vec<usize> = idx.into_iter().take(k.min(xs.len())).collect();
        chosen.sort_unstable();
        chosen.into_iter().map(|i| xs[i].clone()).collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

const DOMAINS: &[&str] = &[
    "billing",
    "inventory",
    "orders",
    "customers",
    "reports",
    "settings",
    "analytics",
    "shipping",
    "catalog",
    "payments",
    "support",
    "accounts",
    "projects",
    "tasks",
    "calendar",
    "messages",
    "files",
    "teams",
    "audit",
    "alerts",
    "devices",
    "invoices",
    "pricing",
    "returns",
    "reviews",
];
const ENTITIES: &[&str] = &[
    "table", "list", "panel", "editor", "form", "card", "detail", "summary", "toolbar", "filter", "chart", "timeline",
    "grid", "sidebar", "header", "dialog", "wizard", "board", "picker", "banner",
];
const QUALIFIERS: &[&str] = &[
    "recent", "pending", "archived", "shared", "pinned", "active", "overdue", "draft", "favorite", "assigned",
    "flagged", "global",
];
const HOOKS: &[&str] = &[
    "List",
    "Item",
    "Selection",
    "Pagination",
    "Filter",
    "Debounce",
    "Storage",
    "Sync",
    "Mutation",
    "Polling",
    "Sort",
    "Draft",
];
const UTILS: &[&str] =
    &["format", "sort", "group", "validate", "normalize", "diff", "search", "csv", "dates", "money", "colors", "paths"];
const UI: &[&str] = &["Button", "Spinner", "Card", "Modal", "Field", "Tabs", "Badge", "Table"];
const STATUSES: &[&str] = &["active", "archived", "draft", "pending", "blocked", "done", "review", "failed"];
const NOUNS: &[&str] = &[
    "owner",
    "amount",
    "currency",
    "region",
    "priority",
    "score",
    "label",
    "channel",
    "source",
    "quantity",
    "weight",
    "budget",
    "category",
    "deadline",
    "notes",
    "reference",
    "vendor",
    "locale",
    "rating",
    "version",
];
const VERBS: &[&str] = &["Shows", "Lists", "Summarises", "Displays", "Tracks", "Groups", "Highlights", "Collects"];

fn pascal(s: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in s.chars() {
        if c == '-' || c == '_' || c == ' ' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn camel(s: &str) -> String {
    let p = pascal(s);
    let mut c = p.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// The plan
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    App,
    Main,
    SchemasBarrel,
    ZodBarrel,
    Ui(&'static str),
    SharedSchemas,
    SharedZod,
    Types,
    Constants,
    Api,
    Index,
    Store,
    ComponentsIndex,
    /// Component name (PascalCase, unique in the feature), entity word.
    Component(String, &'static str),
    Hook(String),
    Util(&'static str),
}

#[derive(Clone, Debug)]
struct Planned {
    rel: String,
    kind: Kind,
    feature: Option<usize>,
    contract: bool,
    lines: usize,
    /// Injection mode: the contract is spliced into the file's text as generated without one.
    injected: bool,
}

struct Feature {
    /// `billing0`: segment of ids, folder name.
    name: String,
    /// `Billing0`.
    pascal: String,
    /// `BILLING0`.
    upper: String,
    /// Prefix of item ids (`bi0_`).
    id_prefix: String,
    statuses: Vec<&'static str>,
    extra_fields: Vec<&'static str>,
}

struct Plan {
    features: Vec<Feature>,
    files: Vec<Planned>,
    /// Injection mode: shared zod modules hold the richer schema set.
    inject: bool,
}

impl Plan {
    fn feature_has(&self, f: usize, kind: &Kind) -> bool {
        self.files.iter().any(|p| p.feature == Some(f) && &p.kind == kind)
    }
    fn feature_files(&self, f: usize) -> impl Iterator<Item = &Planned> {
        self.files.iter().filter(move |p| p.feature == Some(f))
    }
    fn hooks(&self, f: usize) -> Vec<String> {
        self.feature_files(f).filter_map(|p| if let Kind::Hook(h) = &p.kind { Some(h.clone()) } else { None }).collect()
    }
    fn utils(&self, f: usize) -> Vec<&'static str> {
        self.feature_files(f).filter_map(|p| if let Kind::Util(u) = &p.kind { Some(*u) } else { None }).collect()
    }
    fn components(&self, f: usize) -> Vec<String> {
        self.feature_files(f)
            .filter_map(|p| if let Kind::Component(c, _) = &p.kind { Some(c.clone()) } else { None })
            .collect()
    }
    fn ui(&self) -> Vec<&'static str> {
        self.files.iter().filter_map(|p| if let Kind::Ui(u) = &p.kind { Some(*u) } else { None }).collect()
    }
}

const FILES_PER_FEATURE: usize = 60;

fn plan(opts: &GenOptions) -> Plan {
    let n = opts.files.max(8);
    let mut rng = Rng::new(opts.seed);
    let mut files: Vec<Planned> = Vec::new();
    let push = |files: &mut Vec<Planned>, rel: String, kind: Kind, feature: Option<usize>| {
        files.push(Planned { rel, kind, feature, contract: false, lines: 0, injected: false });
    };
    push(&mut files, "src/App.tsx".into(), Kind::App, None);
    push(&mut files, "src/main.tsx".into(), Kind::Main, None);
    push(&mut files, "src/shared/schemas/index.ts".into(), Kind::SchemasBarrel, None);
    push(&mut files, "src/shared/zod/index.ts".into(), Kind::ZodBarrel, None);
    for ui in UI.iter().take((n / 100).min(UI.len())) {
        push(&mut files, format!("src/shared/ui/{ui}.tsx"), Kind::Ui(ui), None);
    }
    let mut features = Vec::new();
    while files.len() < n {
        let f = features.len();
        let domain = DOMAINS[f % DOMAINS.len()];
        let name = format!("{domain}{f}");
        let k = rng.range(3, 5);
        let mut statuses = rng.sample(STATUSES, k);
        let extra = rng.range(3, 8);
        statuses.dedup();
        features.push(Feature {
            pascal: pascal(&name),
            upper: name.to_uppercase(),
            id_prefix: format!("{}{f}_", &domain[..2]),
            statuses,
            extra_fields: rng.sample(NOUNS, extra),
            name: name.clone(),
        });
        let dir = format!("src/features/{name}");
        let quota = std::cell::Cell::new(FILES_PER_FEATURE.min(n - files.len()));
        let add = |files: &mut Vec<Planned>, rel: String, kind: Kind| {
            if quota.get() > 0 {
                quota.set(quota.get() - 1);
                files.push(Planned { rel, kind, feature: Some(f), contract: false, lines: 0, injected: false });
            }
        };
        let mut comp_no = 0;
        let mut next_component = |rng: &mut Rng| {
            comp_no += 1;
            let entity = *rng.pick(ENTITIES);
            let qual = *rng.pick(QUALIFIERS);
            (format!("{}{}{}{}", pascal(domain), pascal(qual), pascal(entity), comp_no), entity)
        };
        add(&mut files, format!("src/shared/schemas/{name}.ts"), Kind::SharedSchemas);
        add(&mut files, format!("src/shared/zod/{name}.ts"), Kind::SharedZod);
        add(&mut files, format!("{dir}/types.ts"), Kind::Types);
        add(&mut files, format!("{dir}/constants.ts"), Kind::Constants);
        let (c, e) = next_component(&mut rng);
        add(&mut files, format!("{dir}/components/{c}.tsx"), Kind::Component(c, e));
        add(&mut files, format!("{dir}/api.ts"), Kind::Api);
        add(&mut files, format!("{dir}/index.ts"), Kind::Index);
        add(&mut files, format!("{dir}/store.ts"), Kind::Store);
        add(&mut files, format!("{dir}/components/index.ts"), Kind::ComponentsIndex);
        let mut hooks = HOOKS.iter();
        let mut utils = UTILS.iter();
        let mut step = 0usize;
        while quota.get() > 0 {
            step += 1;
            match step % 6 {
                1 if hooks.len() > 0 => {
                    let h = format!("use{}{}", features[f].pascal, hooks.next().unwrap());
                    add(&mut files, format!("{dir}/hooks/{h}.ts"), Kind::Hook(h));
                }
                4 if utils.len() > 0 => {
                    let u = *utils.next().unwrap();
                    add(&mut files, format!("{dir}/utils/{u}.ts"), Kind::Util(u));
                }
                _ => {
                    let (c, e) = next_component(&mut rng);
                    add(&mut files, format!("{dir}/components/{c}.tsx"), Kind::Component(c, e));
                }
            }
        }
    }

    if let Some(n_inject) = opts.inject {
        inject_into(&mut files, n_inject);
        return Plan { features, files, inject: true };
    }

    // 5 % of the files declare contracts: about a fifth of them API modules (procedures and an
    // external tool), the rest components.
    let total_contract_files = ((n as f64) * 0.05).round().max(1.0) as usize;
    let apis: Vec<usize> = (0..files.len()).filter(|&i| files[i].kind == Kind::Api).collect();
    let comps: Vec<usize> = (0..files.len()).filter(|&i| matches!(files[i].kind, Kind::Component(..))).collect();
    let want_api = if total_contract_files >= 5 { total_contract_files / 5 } else { 0 };
    let n_api = want_api.min(apis.len());
    let n_comp = (total_contract_files - n_api).min(comps.len());
    let n_api = (total_contract_files - n_comp).min(apis.len());
    for k in 0..n_comp {
        files[comps[k * comps.len() / n_comp]].contract = true;
    }
    for k in 0..n_api {
        files[apis[k * apis.len() / n_api]].contract = true;
    }
    if let Some(&first) = comps.iter().find(|&&i| files[i].contract) {
        files[first].lines = opts.check_file_lines;
    }
    Plan { features, files, inject: false }
}

/// Chooses the `n` files that get a contract: one API module in eight (procedures, at most one
/// per feature), the rest components, spread evenly over the tree.
fn inject_into(files: &mut [Planned], n: usize) {
    let apis: Vec<usize> = (0..files.len()).filter(|&i| files[i].kind == Kind::Api).collect();
    let comps: Vec<usize> = (0..files.len()).filter(|&i| matches!(files[i].kind, Kind::Component(..))).collect();
    let n_api = (n / 8).min(apis.len());
    let n_comp = (n - n_api).min(comps.len());
    assert_eq!(
        n_api + n_comp,
        n,
        "--inject {n}: the tree has only {} components and {} API modules",
        comps.len(),
        apis.len()
    );
    for k in 0..n_comp {
        let i = comps[k * comps.len() / n_comp];
        files[i].contract = true;
        files[i].injected = true;
    }
    for k in 0..n_api {
        let i = apis[k * apis.len() / n_api];
        files[i].contract = true;
        files[i].injected = true;
    }
}

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

/// Writes the project under `root` (which is emptied first) and returns what it holds.
pub fn generate(root: &Path, opts: &GenOptions) -> std::io::Result<GenSummary> {
    generate_with(root, opts, true)
}

/// [`generate`], or with `write` false only what it would write (the summary).
pub fn generate_with(root: &Path, opts: &GenOptions, write: bool) -> std::io::Result<GenSummary> {
    if !write {
        return summarize(root, opts);
    }
    if root.exists() {
        std::fs::remove_dir_all(root)?;
    }
    std::fs::create_dir_all(root)?;
    let plan = plan(opts);
    std::fs::write(
        root.join("agent-surface.config.json"),
        "{\n  \"include\": [\"src/**/*.ts\", \"src/**/*.tsx\"],\n  \"exclude\": [\"**/*.test.ts\", \"**/*.test.tsx\"],\n  \"output\": \"agent-surface.manifest.json\"\n}\n",
    )?;
    std::fs::write(
        root.join("tsconfig.json"),
        "{\n  \"compilerOptions\": {\n    \"target\": \"ES2022\",\n    \"module\": \"ESNext\",\n    \"moduleResolution\": \"Bundler\",\n    \"jsx\": \"react-jsx\",\n    \"strict\": true,\n    \"baseUrl\": \".\",\n    \"paths\": { \"@/*\": [\"src/*\"] }\n  },\n  \"include\": [\"src\"]\n}\n",
    )?;
    std::fs::write(
        root.join("package.json"),
        "{\n  \"name\": \"synthetic-app\",\n  \"private\": true,\n  \"type\": \"module\"\n}\n",
    )?;

    let (contents, contracts) = contents(&plan, opts);
    let mut hasher = blake3::Hasher::new();
    let mut bytes = 0u64;
    for (rel, text) in &contents {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent"))?;
        std::fs::write(&path, text)?;
        hasher.update(rel.as_bytes());
        hasher.update(&[0]);
        hasher.update(&(text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
        bytes += text.len() as u64;
    }
    Ok(summary(root, &plan, bytes, contracts, hasher.finalize().to_hex().to_string()))
}

fn summarize(root: &Path, opts: &GenOptions) -> std::io::Result<GenSummary> {
    let plan = plan(opts);
    let (contents, contracts) = contents(&plan, opts);
    let mut hasher = blake3::Hasher::new();
    let mut bytes = 0u64;
    for (rel, text) in &contents {
        hasher.update(rel.as_bytes());
        hasher.update(&[0]);
        hasher.update(&(text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
        bytes += text.len() as u64;
    }
    Ok(summary(root, &plan, bytes, contracts, hasher.finalize().to_hex().to_string()))
}

/// Every file's text, sorted by path, and the number of contracts.
fn contents(plan: &Plan, opts: &GenOptions) -> (Vec<(String, String)>, usize) {
    let mut contents: Vec<(String, String)> = Vec::with_capacity(plan.files.len());
    let mut contracts = 0;
    for (i, p) in plan.files.iter().enumerate() {
        let mut rng = Rng::new(opts.seed ^ (i as u64 + 1).wrapping_mul(0xa076_1d64_78bd_642f));
        let (text, n) = render(plan, p, &mut rng);
        contracts += n;
        contents.push((p.rel.clone(), text));
    }
    contents.sort_by(|a, b| a.0.cmp(&b.0));
    (contents, contracts)
}

fn summary(root: &Path, plan: &Plan, bytes: u64, contracts: usize, hash: String) -> GenSummary {
    let contract_files: Vec<&Planned> = plan.files.iter().filter(|p| p.contract).collect();
    // With nothing injected (`--inject 0`) there is no contract file: the targets are then the
    // first component, which declares none.
    let first_component = plan.files.iter().find(|p| matches!(p.kind, Kind::Component(..)));
    let check = plan
        .files
        .iter()
        .find(|p| p.lines > 0)
        .or(contract_files.iter().find(|p| matches!(p.kind, Kind::Component(..))).copied())
        .or(contract_files.first().copied())
        .or(first_component)
        .expect("one contract file");
    let contract =
        contract_files.iter().rev().find(|p| matches!(p.kind, Kind::Component(..))).copied().unwrap_or(check);
    let plain = plan
        .files
        .iter()
        .rev()
        .find(|p| !p.contract && matches!(p.kind, Kind::Component(..)))
        .unwrap_or(&plan.files[0]);
    let shared = plan
        .files
        .iter()
        .find(|p| p.kind == Kind::SharedZod)
        .map(|p| p.rel.clone())
        .unwrap_or_else(|| plan.files[0].rel.clone());
    GenSummary {
        shared_file: root.join(shared),
        root: root.to_path_buf(),
        files: plan.files.len(),
        bytes,
        contract_files: contract_files.len(),
        contracts,
        hash: format!("blake3:{hash}"),
        check_file: root.join(&check.rel),
        contract_file: root.join(&contract.rel),
        plain_file: root.join(&plain.rel),
    }
}

/// The injected contract's own random stream: the file's text without it stays what it is
/// when nothing is injected.
fn rng_seed_of_injection(p: &Planned) -> u64 {
    let mut h: u64 = 0x1f83_d9ab_fb41_bd6b;
    for b in p.rel.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// A component's text with the contract's imports after its first import and the contract
/// before its props.
fn splice_component(text: &str, imports: &str, contract: &str, name: &str) -> String {
    let first_line = text.find('\n').map_or(text.len(), |i| i + 1);
    let props = text.find(&format!("export interface {name}Props")).expect("a props interface");
    format!("{}{imports}{}{contract}{}", &text[..first_line], &text[first_line..props], &text[props..])
}

/// A file's text and the number of contracts it declares.
fn render(plan: &Plan, p: &Planned, rng: &mut Rng) -> (String, usize) {
    let mut w = String::with_capacity(8 * 1024);
    let mut contracts = 0;
    match &p.kind {
        Kind::App => app(&mut w, plan),
        Kind::Main => w.push_str(
            "import { StrictMode } from \"react\";\nimport { createRoot } from \"react-dom/client\";\nimport { App } from \"./App\";\n\nconst container = document.getElementById(\"root\");\nif (!container) {\n  throw new Error(\"missing #root\");\n}\ncreateRoot(container).render(\n  <StrictMode>\n    <App />\n  </StrictMode>,\n);\n",
        ),
        Kind::SchemasBarrel | Kind::ZodBarrel => {
            let want = if p.kind == Kind::SchemasBarrel { Kind::SharedSchemas } else { Kind::SharedZod };
            w.push_str("// Barrel: every feature's schemas, re-exported.\n");
            for (i, f) in plan.features.iter().enumerate() {
                if plan.feature_has(i, &want) {
                    let _ = writeln!(w, "export * from \"./{}\";", f.name);
                }
            }
        }
        Kind::Ui(name) => ui(&mut w, name, rng),
        Kind::SharedSchemas => shared_schemas(&mut w, &plan.features[p.feature.unwrap()], rng),
        Kind::SharedZod => {
            shared_zod(&mut w, &plan.features[p.feature.unwrap()], rng);
            if plan.inject {
                shared_zod_app(&mut w, plan, p.feature.unwrap(), rng);
            }
        }
        Kind::Types => types(&mut w, &plan.features[p.feature.unwrap()], rng),
        Kind::Constants => constants(&mut w, &plan.features[p.feature.unwrap()], rng),
        Kind::Api if p.injected => {
            let f = p.feature.unwrap();
            api(&mut w, plan, f, false, rng);
            let mut inject_rng = Rng::new(rng_seed_of_injection(p));
            let contract = injected_procedures(plan, f, &mut inject_rng);
            contracts += contract.1;
            w = format!("{}\n{w}", contract.0);
        }
        Kind::Api => {
            let f = p.feature.unwrap();
            if p.contract {
                contracts += api_contracts(&mut w, &plan.features[f], rng);
            }
            api(&mut w, plan, f, p.contract, rng);
        }
        Kind::Index => {
            let f = p.feature.unwrap();
            let _ = writeln!(w, "// Public surface of the {} feature.", plan.features[f].name);
            for (kind, module) in [(Kind::Types, "./types"), (Kind::Constants, "./constants"), (Kind::Api, "./api"), (Kind::Store, "./store"), (Kind::ComponentsIndex, "./components")] {
                if plan.feature_has(f, &kind) {
                    let _ = writeln!(w, "export * from \"{module}\";");
                }
            }
            for h in plan.hooks(f) {
                let _ = writeln!(w, "export {{ {h} }} from \"./hooks/{h}\";");
            }
        }
        Kind::Store => store(&mut w, plan, p.feature.unwrap(), rng),
        Kind::ComponentsIndex => {
            for c in plan.components(p.feature.unwrap()) {
                let _ = writeln!(w, "export {{ {c} }} from \"./{c}\";");
            }
        }
        Kind::Component(name, entity) if p.injected => {
            let f = p.feature.unwrap();
            component(&mut w, plan, f, name, entity, false, p.lines, rng);
            let mut inject_rng = Rng::new(rng_seed_of_injection(p));
            let (imports, contract) = injected_component(plan, f, name, entity, &mut inject_rng);
            contracts += 1;
            w = splice_component(&w, &imports, &contract, name);
        }
        Kind::Component(name, entity) => {
            let f = p.feature.unwrap();
            contracts += component(&mut w, plan, f, name, entity, p.contract, p.lines, rng);
        }
        Kind::Hook(name) => hook(&mut w, plan, p.feature.unwrap(), name, rng),
        Kind::Util(name) => util(&mut w, &plan.features[p.feature.unwrap()], name, rng),
    }
    (w, contracts)
}
