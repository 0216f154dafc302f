//! ListHotTablets from the engine's per-tablet access statistics of the named cluster's copy
//! (`sparsetable::Database::hot_tablets`): the tablets that did a large share of the work.

use super::*;

/// The share of the work a tablet must have done in the window to count as hot.
const HOT_TABLET_MIN_SHARE_PERCENT: f32 = 5.0;
/// The longest window ListHotTablets accepts (the proto's rule).
const HOT_TABLETS_MAX_WINDOW_MICROS: i64 = 48 * 3600 * 1_000_000;

impl InstanceAdminService {
    /// ListHotTablets from the engine's per-tablet access statistics (see
    /// `sparsetable::Database::hot_tablets`) of the named cluster's copy: the window defaults to
    /// the 24 hours before now, may be at most 48 hours, and must end after it starts. A
    /// tablet's `end_key` is the first key after it (the engine's tablets end exclusively).
    pub(super) fn list_hot_tablets_inner(
        &self,
        req: &admin_v2::ListHotTabletsRequest,
    ) -> Result<admin_v2::ListHotTabletsResponse> {
        let (instance, cluster) = split_child("parent", &req.parent, "clusters")?;
        let instance = self.existing("parent", &instance.to_string())?;
        let db = match self.instances.replicated(&instance)? {
            Some(rep) => {
                let ids = rep.cluster_ids()?;
                let i = ids.iter().position(|c| c == cluster).ok_or_else(|| {
                    Error::not_found(format!("cluster {} not found", quoted(cluster)))
                })?;
                rep.pump()?;
                rep.replica(i)
                    .cloned()
                    .ok_or_else(|| Error::not_found("cluster"))?
            }
            None => {
                if !self
                    .instances
                    .clusters_of(&instance)?
                    .iter()
                    .any(|c| c.id == cluster)
                {
                    return Err(Error::not_found(format!(
                        "cluster {} not found",
                        quoted(cluster)
                    )));
                }
                self.instances.database(&instance)?
            }
        };
        let micros = |t: &prost_types::Timestamp| {
            t.seconds
                .saturating_mul(1_000_000)
                .saturating_add(i64::from(t.nanos) / 1000)
        };
        let now = db.read(|d| Ok(d.now_micros()))?;
        let end = req.end_time.as_ref().map_or(now, micros);
        let start = req
            .start_time
            .as_ref()
            .map_or(end - 24 * 3600 * 1_000_000, micros);
        if end <= start || end - start > HOT_TABLETS_MAX_WINDOW_MICROS {
            return Err(Error::invalid_argument(
                "start_time must be before end_time, at most 48 hours apart",
            ));
        }
        if req.page_size < 0 {
            return Err(Error::invalid_argument("page_size must not be negative"));
        }
        let offset: usize = if req.page_token.is_empty() {
            0
        } else {
            req.page_token.parse().map_err(|_| {
                Error::invalid_argument(format!(
                    "page_token {} is not one of ours",
                    quoted(&req.page_token)
                ))
            })?
        };
        let hot = db.read(|d| d.hot_tablets(start, end, HOT_TABLET_MIN_SHARE_PERCENT))?;
        let size = if req.page_size == 0 {
            hot.len().max(1)
        } else {
            req.page_size as usize
        };
        let page: Vec<_> = hot.iter().skip(offset).take(size).collect();
        let next = offset + page.len();
        let parent = &req.parent;
        Ok(admin_v2::ListHotTabletsResponse {
            hot_tablets: page
                .iter()
                .enumerate()
                .map(|(k, h)| admin_v2::HotTablet {
                    name: format!("{parent}/hotTablets/hot-{}", offset + k),
                    table_name: instance.table(&h.table_id).to_string(),
                    start_time: Some(crate::convert::timestamp_to_proto(start)),
                    end_time: Some(crate::convert::timestamp_to_proto(end)),
                    start_key: String::from_utf8_lossy(&h.start_key).into_owned(),
                    end_key: String::from_utf8_lossy(&h.end_key).into_owned(),
                    node_cpu_usage_percent: h.cpu_share_percent,
                })
                .collect(),
            next_page_token: if next < hot.len() {
                next.to_string()
            } else {
                String::new()
            },
        })
    }
}
