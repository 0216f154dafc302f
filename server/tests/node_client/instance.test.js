'use strict';
// Instance admin through Google's Node.js client: an instance created with named clusters
// reports those clusters (cluster.get, getClusters) and a table's replication states are
// keyed by them, as Cloud Bigtable does.

const {test} = require('node:test');
const assert = require('node:assert/strict');
const {PROJECT, client} = require('./support');

test('createInstance keeps the requested cluster ids', async () => {
  const bigtable = client();
  const id = `inst-${process.pid}`;
  const clusterId = `${id}-west`;
  const [instance, operation] = await bigtable.createInstance(id, {
    displayName: 'node test instance',
    clusters: [{id: clusterId, location: 'us-west1-a', nodes: 3, storage: 'ssd'}],
  });
  await operation.promise();
  assert.equal((await instance.exists())[0], true);
  const [cluster, metadata] = await instance.cluster(clusterId).get();
  assert.equal(cluster.id, clusterId);
  assert.equal(metadata.location, `projects/${PROJECT}/locations/us-west1-a`);
  assert.equal(metadata.serveNodes, 3);
  assert.equal(metadata.state, 'READY');
  const [clusters] = await instance.getClusters();
  assert.deepEqual(clusters.map(c => c.id), [clusterId]);

  const [table] = await instance.createTable('t', {families: ['cf']});
  const [states] = await table.getReplicationStates();
  assert.deepEqual([...states.keys()], [clusterId]);
  assert.equal(states.get(clusterId).replicationState, 'READY');

  // Backups go through the cluster the replication states name.
  const [backup, backupOp] = await table.createBackup('b1', {
    expireTime: new Date(Date.now() + 24 * 3600 * 1000),
  });
  await backupOp.promise();
  assert.equal(backup.cluster.id, clusterId);
  const [backups] = await instance.cluster(clusterId).getBackups();
  assert.deepEqual(backups.map(b => b.id), ['b1']);
  await backup.delete();

  await instance.delete();
  assert.equal((await instance.exists())[0], false);
});
