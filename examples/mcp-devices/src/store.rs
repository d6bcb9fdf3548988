//! The in-memory devices store and the handlers bound over it: every observation, action,
//! procedure and external tool of the example app's manifest. Each handler run is counted per
//! capability id, so the host control channel can prove that a confirmed operation ran once.

use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::binding::{
    execute_fn, read_sync, ActionBinding, BoundComponent, BoundProcedure, HandlerError, ObservationBinding,
    PreconditionFailure,
};
use agent_surface_engine::snapshot::iso8601;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

#[derive(Clone, Debug)]
struct Device {
    id: String,
    name: String,
    status: String,
    last_seen: Option<String>,
}

/// One table instance's view state.
#[derive(Clone, Debug)]
struct View {
    sort: String,
    direction: String,
    filter: String,
    status: Option<String>,
    selection: Vec<String>,
}

impl Default for View {
    fn default() -> Self {
        View {
            sort: "name".into(),
            direction: "asc".into(),
            filter: String::new(),
            status: None,
            selection: Vec::new(),
        }
    }
}

#[derive(Default)]
struct Data {
    devices: Vec<Device>,
    views: BTreeMap<String, View>,
    route: String,
    executions: BTreeMap<String, usize>,
    /// Artificial latency of `domain:devices.reboot` (to exercise cancellation).
    slow_ms: u64,
    jobs: u64,
}

#[derive(Clone, Default)]
pub struct Store(Arc<Mutex<Data>>);

fn device(id: &str, name: &str, status: &str, last_seen: Option<&str>) -> Device {
    Device { id: id.into(), name: name.into(), status: status.into(), last_seen: last_seen.map(str::to_string) }
}

impl Store {
    pub fn example() -> Store {
        let data = Data {
            devices: vec![
                device("dev_8f3k2a", "Lobby camera", "online", Some("2026-03-01T09:15:00Z")),
                device("dev_a1b2c3", "Warehouse sensor", "offline", Some("2026-02-27T17:40:12Z")),
                device("dev_q9w8e7", "Front door lock", "online", Some("2026-03-01T09:14:55Z")),
                device("dev_z5x4c3", "Parking gate", "maintenance", None),
            ],
            route: "/devices".into(),
            ..Default::default()
        };
        Store(Arc::new(Mutex::new(data)))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Data> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn count(&self, capability_id: &str) {
        *self.lock().executions.entry(capability_id.to_string()).or_default() += 1;
    }

    pub fn executions(&self, capability_id: &str) -> usize {
        self.lock().executions.get(capability_id).copied().unwrap_or(0)
    }

    pub fn all_executions(&self) -> BTreeMap<String, usize> {
        self.lock().executions.clone()
    }

    pub fn device_ids(&self) -> Value {
        json!(self.lock().devices.iter().map(|d| d.id.clone()).collect::<Vec<_>>())
    }

    pub fn set_slow(&self, ms: u64) {
        self.lock().slow_ms = ms;
    }

    fn read_state(&self, instance: &str) -> Value {
        let data = self.lock();
        let view = data.views.get(instance).cloned().unwrap_or_default();
        let needle = view.filter.to_lowercase();
        let mut rows: Vec<&Device> = data
            .devices
            .iter()
            .filter(|d| d.name.to_lowercase().contains(&needle) && view.status.as_ref().is_none_or(|s| &d.status == s))
            .collect();
        rows.sort_by(|a, b| {
            let key = |d: &Device| match view.sort.as_str() {
                "status" => d.status.clone(),
                "lastSeen" => d.last_seen.clone().unwrap_or_default(),
                _ => d.name.to_lowercase(),
            };
            key(a).cmp(&key(b)).then_with(|| a.id.cmp(&b.id))
        });
        if view.direction == "desc" {
            rows.reverse();
        }
        let rows: Vec<Value> = rows
            .into_iter()
            .take(200)
            .map(|d| json!({"id": d.id, "name": d.name, "status": d.status, "lastSeen": d.last_seen}))
            .collect();
        json!({"rows": rows, "sort": view.sort, "filter": view.filter})
    }

    /// `devices.table` for `instance`, referencing both procedures.
    pub fn bind_table(&self, a: &CapabilityAuthority, instance: &str) -> Result<BoundComponent, String> {
        self.lock().views.entry(instance.to_string()).or_default();
        let inst = instance.to_string();
        let (s1, s2, s3, s4, s5, s6) =
            (self.clone(), self.clone(), self.clone(), self.clone(), self.clone(), self.clone());
        let (i1, i2, i3, i4, i5, i6) =
            (inst.clone(), inst.clone(), inst.clone(), inst.clone(), inst.clone(), inst.clone());
        let table = a.component("devices.table").map_err(|e| e.to_string())?;
        table
            .bind()
            .instance(instance)
            .observation("readState", ObservationBinding::new(read_sync(move |_| s1.read_state(&i1))))
            .observation(
                "readSelection",
                ObservationBinding::new(read_sync(
                    move |_| json!({"ids": s2.lock().views.get(&i2).map(|v| v.selection.clone()).unwrap_or_default()}),
                )),
            )
            .action(
                "selectRows",
                ActionBinding::new(execute_fn(move |input, _| {
                    let store = s3.clone();
                    let instance = i3.clone();
                    async move {
                        store.count("view:devices.table.selectRows");
                        let ids: Vec<String> = input["ids"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect();
                        let mut data = store.lock();
                        let unknown: Vec<&String> =
                            ids.iter().filter(|id| !data.devices.iter().any(|d| &&d.id == id)).collect();
                        if !unknown.is_empty() {
                            let mut details = Map::new();
                            details.insert("unknownIds".into(), json!(unknown));
                            return Err(HandlerError::Precondition(PreconditionFailure {
                                message: "some ids are not in the table; read the state first".into(),
                                details: Some(details),
                            }));
                        }
                        let n = ids.len();
                        data.views.entry(instance).or_default().selection = ids;
                        Ok(json!({"selected": n}))
                    }
                })),
            )
            .action(
                "clearSelection",
                ActionBinding::new(execute_fn(move |_, _| {
                    let store = s4.clone();
                    let instance = i4.clone();
                    async move {
                        store.count("view:devices.table.clearSelection");
                        store.lock().views.entry(instance).or_default().selection.clear();
                        Ok(json!({"selected": 0}))
                    }
                })),
            )
            .action(
                "sortBy",
                ActionBinding::new(execute_fn(move |input, _| {
                    let store = s5.clone();
                    let instance = i5.clone();
                    async move {
                        store.count("view:devices.table.sortBy");
                        let mut data = store.lock();
                        let view = data.views.entry(instance).or_default();
                        view.sort = input["column"].as_str().unwrap_or("name").to_string();
                        view.direction = input["direction"].as_str().unwrap_or("asc").to_string();
                        Ok(json!({"sort": view.sort, "direction": view.direction}))
                    }
                })),
            )
            .action(
                "filter",
                ActionBinding::new(execute_fn(move |input, _| {
                    let store = s6.clone();
                    let instance = i6.clone();
                    async move {
                        store.count("view:devices.table.filter");
                        {
                            let mut data = store.lock();
                            let view = data.views.entry(instance.clone()).or_default();
                            view.filter = input["text"].as_str().unwrap_or("").to_string();
                            view.status = input["status"].as_str().map(str::to_string);
                        }
                        let visible = store.read_state(&instance)["rows"].as_array().map(Vec::len).unwrap_or(0);
                        Ok(json!({"visible": visible}))
                    }
                })),
            )
            .procedure(self.bind_decommission(a)?)
            .procedure(self.bind_reboot(a)?)
            .build()
            .map_err(|e| e.to_string())
    }

    fn bind_decommission(&self, a: &CapabilityAuthority) -> Result<BoundProcedure, String> {
        let store = self.clone();
        a.procedure("domain:devices.decommission")
            .map_err(|e| e.to_string())?
            .bind(execute_fn(move |input, ctx| {
                let store = store.clone();
                async move {
                    if ctx.confirmation.is_none() {
                        // The pipeline never lets this happen; the store double-checks.
                        return Err(HandlerError::Failed("decommission without confirmation evidence".into()));
                    }
                    store.count("domain:devices.decommission");
                    let ids: Vec<String> = input["ids"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect();
                    let mut data = store.lock();
                    let before = data.devices.len();
                    data.devices.retain(|d| !ids.contains(&d.id));
                    for view in data.views.values_mut() {
                        view.selection.retain(|id| !ids.contains(id));
                    }
                    let removed = before - data.devices.len();
                    Ok(json!({"removed": removed, "ids": ids}))
                }
            }))
            .map_err(|e| e.to_string())
    }

    fn bind_reboot(&self, a: &CapabilityAuthority) -> Result<BoundProcedure, String> {
        let store = self.clone();
        a.procedure("domain:devices.reboot")
            .map_err(|e| e.to_string())?
            .bind(execute_fn(move |input, ctx| {
                let store = store.clone();
                async move {
                    store.count("domain:devices.reboot");
                    let slow = store.lock().slow_ms;
                    if slow > 0 {
                        tokio::select! {
                            _ = tokio::time::sleep(std::time::Duration::from_millis(slow)) => {}
                            _ = ctx.signal.aborted() => return Err(HandlerError::Failed("cancelled".into())),
                        }
                    }
                    let ids: Vec<String> = input["ids"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect();
                    let mut data = store.lock();
                    let mut scheduled = 0;
                    for d in data.devices.iter_mut().filter(|d| ids.contains(&d.id)) {
                        d.status = "maintenance".into();
                        scheduled += 1;
                    }
                    Ok(json!({"scheduled": scheduled}))
                }
            }))
            .map_err(|e| e.to_string())
    }

    pub fn bind_nav(&self, a: &CapabilityAuthority) -> Result<BoundComponent, String> {
        let (s1, s2) = (self.clone(), self.clone());
        a.component("app.nav")
            .map_err(|e| e.to_string())?
            .bind()
            .observation("currentRoute", ObservationBinding::new(read_sync(move |_| json!({"path": s1.lock().route}))))
            .action(
                "navigate",
                ActionBinding::new(execute_fn(move |input, _| {
                    let store = s2.clone();
                    async move {
                        store.count("view:app.nav.navigate");
                        let mut path = input["to"].as_str().unwrap_or("/").to_string();
                        if let Some(id) = input["params"]["id"].as_str() {
                            path = path.replace(":id", id);
                        }
                        store.lock().route = path.clone();
                        Ok(json!({"path": path}))
                    }
                })),
            )
            .build()
            .map_err(|e| e.to_string())
    }

    /// `external:reports.export`, for the exposure gateway.
    pub fn bind_export(&self, a: &CapabilityAuthority) -> Result<BoundProcedure, String> {
        let store = self.clone();
        a.external_tool("external:reports.export")
            .map_err(|e| e.to_string())?
            .bind(execute_fn(move |_input, _ctx| {
                let store = store.clone();
                async move {
                    store.count("external:reports.export");
                    let n = {
                        let mut data = store.lock();
                        data.jobs += 1;
                        data.jobs
                    };
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_millis() as u64)
                        .unwrap_or(0);
                    Ok(json!({"jobId": format!("00000000-0000-4000-8000-{n:012x}"), "queuedAt": iso8601(now)}))
                }
            }))
            .map_err(|e| e.to_string())
    }
}
