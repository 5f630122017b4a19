// TinkerPop's Node driver against `stratagraph serve` with the modern
// graph loaded: bytecode and script requests in both serializers, bindings,
// a long result, an error, and a remote transaction that commits and one
// that rolls back. Run as `node gremlin_js_test.js ws://HOST:PORT/gremlin`
// (tests/python/test_gremlin_server.py does); prints one line per
// serializer and exits non-zero on the first wrong answer.
'use strict';
const assert = require('assert/strict');
const gremlin = require('gremlin');

const { DriverRemoteConnection, Client } = gremlin.driver;
const traversal = gremlin.process.AnonymousTraversalSource.traversal;
const { t, P } = gremlin.process;

const url = process.argv[2];
const MIME = {
  graphbinary: 'application/vnd.graphbinary-v1.0',
  graphson: 'application/vnd.gremlin-v3.0+json',
};

async function check(name, mimeType, base) {
  const conn = new DriverRemoteConnection(url, { mimeType });
  const client = new Client(url, { traversalSource: 'g', mimeType });
  const g = traversal().withRemote(conn);
  try {
    // Bytecode.
    const names = await g.V().has('person', 'name', 'marko').out('knows').values('name').toList();
    assert.deepEqual([...names].sort(), ['josh', 'vadas']);
    assert.equal(Number((await g.V().count().next()).value), 6);
    const v = (await g.V().has('name', 'marko').next()).value;
    assert.equal(Number(v.id), 1);
    assert.equal(v.label, 'person');
    assert.equal(Number((await g.V().has('age', P.gt(30)).count().next()).value), 2);

    // Scripts, bindings, a result in many batches.
    const ages = (await client.submit("g.V().hasLabel('person').values('age').order()")).toArray();
    assert.deepEqual(ages.map(Number), [27, 29, 32, 35]);
    const xs = Array.from({ length: 3000 }, (_, i) => i);
    const back = (await client.submit('g.inject(xs).unfold()', { xs })).toArray();
    assert.deepEqual(back.map(Number), xs);

    // An error names what was wrong.
    await assert.rejects(client.submit('g.V().fooo()'), (e) => {
      assert.equal(e.statusCode, 597);
      assert.match(String(e.message), /fooo/);
      return true;
    });

    // A remote transaction that commits, then one that rolls back.
    const tx = g.tx();
    const gtx = tx.begin();
    await gtx.addV('person').property(t.id, base).property('name', 'js').iterate();
    assert.equal(Number((await gtx.V(base).count().next()).value), 1);
    assert.equal(Number((await g.V(base).count().next()).value), 0);
    await tx.commit();
    assert.equal(Number((await g.V(base).count().next()).value), 1);
    const tx2 = g.tx();
    const gtx2 = tx2.begin();
    await gtx2.V(base).drop().iterate();
    await tx2.rollback();
    assert.equal(Number((await g.V(base).count().next()).value), 1);
    await g.V(base).drop().iterate();
    console.log(`${name}: ok`);
  } finally {
    await client.close();
    await conn.close();
  }
}

(async () => {
  await check('graphbinary', MIME.graphbinary, 400);
  await check('graphson', MIME.graphson, 401);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
