import static org.apache.tinkerpop.gremlin.process.traversal.AnonymousTraversalSource.traversal;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileWriter;
import java.io.IOException;
import java.io.BufferedInputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiPredicate;

import org.apache.tinkerpop.gremlin.driver.Cluster;
import org.apache.tinkerpop.gremlin.driver.exception.ResponseException;
import org.apache.tinkerpop.gremlin.driver.remote.DriverRemoteConnection;
import org.apache.tinkerpop.gremlin.process.traversal.dsl.graph.GraphTraversalSource;
import org.apache.tinkerpop.gremlin.process.traversal.dsl.graph.__;
import org.apache.tinkerpop.gremlin.util.message.ResponseStatusCode;
import org.apache.tinkerpop.gremlin.util.ser.GraphBinaryMessageSerializerV1;
import org.apache.tinkerpop.shaded.jackson.databind.JsonNode;
import org.apache.tinkerpop.shaded.jackson.databind.ObjectMapper;

/**
 * The Java client of the Aster (Poly-LSM) Gremlin experiment: the `latency`
 * and `mixes` phases of bench/aster/aster.py, with TinkerPop's Java driver
 * (gremlin-driver 3.8.1, GraphBinary 1.0, bytecode through
 * DriverRemoteConnection), on a store that `aster.py load` has loaded.
 *
 * <pre>
 *   AsterJava latency --url URL --system S --ids FILE --out TSV [--samples 2000] [--find-samples 50]
 *                     [--threads 1,8] [--ceiling-seconds 10] [--warmup-seconds 2] [--seed 1]
 *   AsterJava mixes   --url URL --system S --ids FILE --out TSV [--threads 1,8] [--mix-ops 20000]
 *                     [--warmup-seconds 2] [--lookups 10,50,90] [--check-sample 200] [--seed 1]
 *   common: [--data /work/data] [--grateful FILE]  (where the dataset files are, as aster.py reads them)
 * </pre>
 *
 * The requests are aster.py's op_* functions, one for one (the same steps,
 * ids as Long, vid as Integer, the score as Double); the rows go to the same
 * TSV with the same columns, phases `latency-java`, `ceiling-java`,
 * `mix-java`, `check-java`, and `procs` = client threads.
 *
 * Connections: every client thread has its own DriverRemoteConnection, i.e.
 * its own Client and connection pool of exactly one WebSocket connection
 * (min = max pool size 1), on one Cluster per run that all threads share
 * (one Netty event loop group and executor for the process). So T threads
 * hold T connections with one request in flight each, as T aster.py
 * processes do, without T event loops competing for the 2 cores.
 */
public final class AsterJava {
    static final String[] COLUMNS = {"system", "dataset", "phase", "op", "procs", "n_ops", "seconds", "ops_per_s",
            "p50_ms", "p99_ms", "mean_ms", "retries", "errors", "load_avg", "check", "note"};
    static final int MAX_TRIES = 20;
    static final long LONG_TIMEOUT_MS = 3_600_000L;
    static final String DRIVER = "java gremlin-driver 3.8.1";

    // ------------------------------------------------------------ arguments

    static final class Args {
        String cmd, url, system, ids, out, data, grateful;
        int samples = 2000, findSamples = 50, checkSample = 200, seed = 1;
        double ceilingSeconds = 10, warmupSeconds = 2;
        int mixOps = 20000;
        int[] threads = {1, 8}, lookups = {10, 50, 90};
    }

    static int[] ints(String s) {
        return Arrays.stream(s.split(",")).filter(x -> !x.isEmpty()).mapToInt(Integer::parseInt).toArray();
    }

    static Args parse(String[] argv) {
        if (argv.length == 0 || !(argv[0].equals("latency") || argv[0].equals("mixes"))) {
            usage();
        }
        Args a = new Args();
        a.cmd = argv[0];
        String env = System.getenv("ASTER_DATA");
        a.data = env != null ? env : "/work/data";
        a.grateful = System.getenv("ASTER_GRATEFUL");
        for (int i = 1; i < argv.length; i++) {
            String k = argv[i];
            if (i + 1 >= argv.length) usage();
            String v = argv[++i];
            switch (k) {
                case "--url": a.url = v; break;
                case "--system": a.system = v; break;
                case "--ids": a.ids = v; break;
                case "--out": a.out = v; break;
                case "--data": a.data = v; break;
                case "--grateful": a.grateful = v; break;
                case "--samples": a.samples = Integer.parseInt(v); break;
                case "--find-samples": a.findSamples = Integer.parseInt(v); break;
                case "--check-sample": a.checkSample = Integer.parseInt(v); break;
                case "--seed": a.seed = Integer.parseInt(v); break;
                case "--ceiling-seconds": a.ceilingSeconds = Double.parseDouble(v); break;
                case "--warmup-seconds": a.warmupSeconds = Double.parseDouble(v); break;
                case "--mix-ops": a.mixOps = Integer.parseInt(v); break;
                case "--threads": a.threads = ints(v); break;
                case "--lookups": a.lookups = ints(v); break;
                default:
                    System.err.println("unknown argument " + k);
                    usage();
            }
        }
        if (a.url == null || a.system == null || a.ids == null || a.out == null) usage();
        if (a.grateful == null) {
            // bench/aster/java-client/target/classes -> the repository -> ../shared, as aster.py finds it
            try {
                Path classes = Paths.get(AsterJava.class.getProtectionDomain().getCodeSource().getLocation().toURI());
                a.grateful = classes.resolve("../../../../../../shared/tinkerpop/data/grateful-dead.json")
                        .normalize().toString();
            } catch (Exception e) {
                a.grateful = "../shared/tinkerpop/data/grateful-dead.json";
            }
        }
        return a;
    }

    static void usage() {
        System.err.println("usage: AsterJava latency|mixes --url URL --system S --ids FILE --out TSV "
                + "[--threads 1,8] [--samples 2000] [--find-samples 50] [--ceiling-seconds 10] "
                + "[--mix-ops 20000] [--warmup-seconds 2] [--lookups 10,50,90] [--check-sample 200] "
                + "[--seed 1] [--data DIR] [--grateful FILE]");
        System.exit(2);
    }

    // ------------------------------------------------------------ dataset (as aster.py's load_dataset)

    /** Vertices 0..n-1 in creation order; vids[i] the `vid` property; edges [src0, dst0, ...] of positions. */
    static final class Dataset {
        String name;
        int[] vids;
        int[] edges;

        int n() { return vids.length; }
        long m() { return edges.length / 2; }
    }

    static int gsInt(JsonNode x) {
        return x.isObject() ? x.get("@value").asInt() : x.asInt();
    }

    static Dataset loadDataset(Args a, String name, Long maxEdges, boolean touchedOnly) throws IOException {
        Dataset ds = new Dataset();
        ds.name = name;
        if (name.equals("grateful")) {
            ObjectMapper om = new ObjectMapper();
            List<Integer> order = new ArrayList<>();
            List<int[]> byOrig = new ArrayList<>();
            try (BufferedReader r = Files.newBufferedReader(Paths.get(a.grateful))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.isBlank()) continue;
                    JsonNode v = om.readTree(line);
                    int vid = gsInt(v.get("id"));
                    order.add(vid);
                    JsonNode outE = v.get("outE");
                    if (outE == null) continue;
                    TreeMap<String, JsonNode> sorted = new TreeMap<>();
                    for (Iterator<Map.Entry<String, JsonNode>> it = outE.fields(); it.hasNext(); ) {
                        Map.Entry<String, JsonNode> e = it.next();
                        sorted.put(e.getKey(), e.getValue());
                    }
                    for (JsonNode es : sorted.values()) {
                        for (JsonNode e : es) byOrig.add(new int[]{vid, gsInt(e.get("inV"))});
                    }
                }
            }
            Map<Integer, Integer> pos = new HashMap<>();
            for (int i = 0; i < order.size(); i++) pos.put(order.get(i), i);
            int m = (int) (maxEdges == null ? byOrig.size() : Math.min(byOrig.size(), maxEdges));
            ds.edges = new int[2 * m];
            for (int i = 0; i < m; i++) {
                ds.edges[2 * i] = pos.get(byOrig.get(i)[0]);
                ds.edges[2 * i + 1] = pos.get(byOrig.get(i)[1]);
            }
            ds.vids = new int[order.size()];
            for (int i = 0; i < ds.vids.length; i++) ds.vids[i] = i;
        } else if (name.matches("k[0-9]+")) {
            int scale = Integer.parseInt(name.substring(1));
            File f = new File(a.data, name + ".bin");
            long size = f.length() / 8;
            long count = maxEdges == null ? size : Math.min(size, maxEdges);
            ds.edges = new int[(int) (2 * count)];
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(f), 1 << 20))) {
                byte[] buf = new byte[1 << 20];
                int filled = 0;
                long want = 8 * count;
                ByteBuffer bb = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
                for (long done = 0; done < want; ) {
                    int chunk = (int) Math.min(buf.length, want - done);
                    in.readFully(buf, 0, chunk);
                    bb.clear();
                    for (int i = 0; i < chunk; i += 4) ds.edges[filled++] = bb.getInt(i);
                    done += chunk;
                }
            }
            ds.vids = new int[1 << scale];
            for (int i = 0; i < ds.vids.length; i++) ds.vids[i] = i;
        } else {
            throw new IllegalArgumentException("unknown dataset " + name);
        }
        if (touchedOnly) {
            int[] used = Arrays.stream(ds.edges).distinct().sorted().toArray();
            Map<Integer, Integer> pos = new HashMap<>();
            for (int i = 0; i < used.length; i++) pos.put(used[i], i);
            for (int i = 0; i < ds.edges.length; i++) ds.edges[i] = pos.get(ds.edges[i]);
            int[] vids = new int[used.length];
            for (int i = 0; i < used.length; i++) vids[i] = ds.vids[used[i]];
            ds.vids = vids;
        }
        return ds;
    }

    /** The ids file aster.py's load wrote, and the dataset it describes. */
    static final class Ids {
        String dataset;
        Object[] ids;
        Dataset ds;
    }

    static Ids readIds(Args a) throws IOException {
        JsonNode meta = new ObjectMapper().readTree(new File(a.ids));
        Ids r = new Ids();
        r.dataset = meta.get("dataset").asText();
        JsonNode ids = meta.get("ids");
        r.ids = new Object[ids.size()];
        for (int i = 0; i < ids.size(); i++) {
            JsonNode x = ids.get(i);
            r.ids[i] = x.isIntegralNumber() ? (Object) x.asLong() : x.asText();
        }
        JsonNode me = meta.get("max_edges");
        Long maxEdges = me == null || me.isNull() ? null : me.asLong();
        JsonNode to = meta.get("touched_only");
        r.ds = loadDataset(a, r.dataset, maxEdges, to != null && to.asBoolean());
        if (r.ds.n() != meta.get("n").asLong() || r.ds.m() != meta.get("m").asLong() || r.ids.length != r.ds.n()) {
            throw new IllegalStateException("ids file does not match the dataset");
        }
        return r;
    }

    /** Out-neighbour positions of the vertices in `sample` (multisets). */
    static Map<Integer, List<Integer>> adjacencyOf(Dataset ds, Iterable<Integer> sample) {
        Map<Integer, List<Integer>> adj = new HashMap<>();
        for (int v : sample) adj.put(v, new ArrayList<>());
        int[] e = ds.edges;
        for (int i = 0; i < e.length; i += 2) {
            List<Integer> l = adj.get(e[i]);
            if (l != null) l.add(e[i + 1]);
        }
        return adj;
    }

    /** `size` uniform vertices plus the one of highest out-degree (the first such, as Python's max). */
    static TreeSet<Integer> adjacencySample(Dataset ds, Random rnd, int size) {
        int[] deg = new int[ds.n()];
        for (int i = 0; i < ds.edges.length; i += 2) deg[ds.edges[i]]++;
        int top = 0;
        for (int v = 1; v < deg.length; v++) if (deg[v] > deg[top]) top = v;
        List<Integer> all = new ArrayList<>(ds.n());
        for (int v = 0; v < ds.n(); v++) all.add(v);
        Collections.shuffle(all, rnd);
        TreeSet<Integer> s = new TreeSet<>(all.subList(0, Math.min(size, ds.n())));
        s.add(top);
        return s;
    }

    // ------------------------------------------------------------ ids as the answers carry them

    static Object norm(Object x) {
        return x instanceof Number ? (Object) ((Number) x).longValue() : x;
    }

    static final Comparator<Object> ID_ORDER = (x, y) -> {
        if (x instanceof Long && y instanceof Long) return Long.compare((Long) x, (Long) y);
        if (x instanceof Long) return -1;
        if (y instanceof Long) return 1;
        return String.valueOf(x).compareTo(String.valueOf(y));
    };

    static List<Object> sortedIds(List<?> xs) {
        List<Object> out = new ArrayList<>(xs.size());
        for (Object x : xs) out.add(norm(x));
        out.sort(ID_ORDER);
        return out;
    }

    static boolean isOne(Object r) {
        return r instanceof Number && ((Number) r).longValue() == 1L;
    }

    // ------------------------------------------------------------ client

    static Cluster cluster(String url) {
        URI u = URI.create(url);
        return Cluster.build()
                .addContactPoint(u.getHost())
                .port(u.getPort())
                .path(u.getPath() == null || u.getPath().isEmpty() ? "/gremlin" : u.getPath())
                .serializer(new GraphBinaryMessageSerializerV1())
                .minConnectionPoolSize(1)
                .maxConnectionPoolSize(1)
                .create();
    }

    /** One thread's connection: its own Client (one WebSocket) on the shared Cluster. */
    static final class Conn implements AutoCloseable {
        final DriverRemoteConnection rc;
        final GraphTraversalSource g;

        Conn(Cluster c) {
            rc = DriverRemoteConnection.using(c, "g");
            g = traversal().withRemote(rc);
            opNoop(g); // opens the connection now, not in the first timed request
        }

        @Override
        public void close() throws Exception {
            rc.close();
        }
    }

    // The operations: aster.py's op_* functions, the same steps. Ids go as
    // Long (as aster.py's sid() sends them), vid as Integer (gremlinpython
    // sends a small int as Int32), the score as Double.

    static Object opNoop(GraphTraversalSource g) {
        return g.inject(1).next();
    }

    static Object opAddVertex(GraphTraversalSource g, int vid) {
        return g.addV("v").property("vid", vid).id().next();
    }

    static Object opAddEdge(GraphTraversalSource g, Object a, Object b) {
        return g.V(a).addE("e").to(__.V(b)).count().next();
    }

    static Object opDeleteEdge(GraphTraversalSource g, Object a, Object b) {
        return g.V(a).outE("e").where(__.inV().hasId(b)).limit(1).sideEffect(__.drop()).count().next();
    }

    static List<Object> opGetNeighbors(GraphTraversalSource g, Object a) {
        return g.V(a).out("e").id().toList();
    }

    static Object opUpdateProperty(GraphTraversalSource g, Object a, double x) {
        return g.V(a).property("score", x).count().next();
    }

    static List<Object> opFindByProperty(GraphTraversalSource g, int vid) {
        return g.V().has("v", "vid", vid).id().toList();
    }

    static long countE(GraphTraversalSource g) {
        return ((Number) g.with("evaluationTimeout", LONG_TIMEOUT_MS).E().count().next()).longValue();
    }

    interface Op {
        Object run(GraphTraversalSource g) throws Exception;
    }

    static final class Tried {
        Object result;
        int retries;
    }

    static boolean isStatus500(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ResponseException) {
                return ((ResponseException) c).getResponseStatusCode() == ResponseStatusCode.SERVER_ERROR;
            }
            if (c.getCause() == c) break;
        }
        return false;
    }

    /** op, sent again while the server answers 500 (at most MAX_TRIES), as aster.py's attempt(). */
    static Tried attempt(GraphTraversalSource g, Op op) throws Exception {
        Tried t = new Tried();
        for (int tries = 0; ; tries++) {
            try {
                t.result = op.run(g);
                t.retries = tries;
                return t;
            } catch (Exception e) {
                if (!isStatus500(e) || tries == MAX_TRIES - 1) throw e;
            }
        }
    }

    static String describe(Throwable e) {
        Throwable c = e;
        while (c.getCause() != null && c.getCause() != c
                && (c instanceof IllegalStateException || c instanceof java.util.concurrent.CompletionException
                    || c instanceof java.util.concurrent.ExecutionException)) {
            c = c.getCause();
        }
        String s = c.getClass().getSimpleName() + ": " + c.getMessage();
        return s.length() > 200 ? s.substring(0, 200) : s;
    }

    // ------------------------------------------------------------ measuring and the TSV

    static final class Lat {
        long[] a = new long[1024];
        int n;

        void add(long ns) {
            if (n == a.length) a = Arrays.copyOf(a, 2 * n);
            a[n++] = ns;
        }

        void addAll(Lat o) {
            for (int i = 0; i < o.n; i++) add(o.a[i]);
        }
    }

    static double loadavg() {
        try {
            return Double.parseDouble(Files.readString(Paths.get("/proc/loadavg")).split(" ")[0]);
        } catch (Exception e) {
            return Double.NaN;
        }
    }

    /** Nearest-rank percentile of sorted nanoseconds, in ms (as aster.py's pct). */
    static double pct(long[] sorted, int n, int q) {
        if (n == 0) return Double.NaN;
        long k = Math.max(0, Math.min(n - 1, (n * (long) q + 99) / 100 - 1));
        return sorted[(int) k] / 1e6;
    }

    static String f(String fmt, double v) {
        return Double.isNaN(v) ? "nan" : String.format(Locale.ROOT, fmt, v);
    }

    static final class Out {
        final String path, system, dataset;
        boolean failed;

        Out(String path, String system, String dataset) throws IOException {
            this.path = path;
            this.system = system;
            this.dataset = dataset;
            boolean hasHeader = false, hasMachine = false, hasClient = false;
            File file = new File(path);
            if (file.exists()) {
                for (String line : Files.readAllLines(file.toPath())) {
                    hasHeader |= line.startsWith("system\t");
                    hasMachine |= line.startsWith("# machine:");
                    hasClient |= line.startsWith("# client: " + DRIVER);
                }
            }
            try (PrintWriter w = new PrintWriter(new FileWriter(path, true))) {
                if (!hasMachine) w.println("# machine: " + machine());
                if (!hasClient) {
                    w.println("# client: " + DRIVER + " (Java " + System.getProperty("java.version")
                            + "), GraphBinary 1.0, bytecode requests, one connection per thread "
                            + "(rows *-java, procs = threads)");
                }
                if (!hasHeader) w.println(String.join("\t", COLUMNS));
            }
        }

        synchronized void row(String phase, String op, int procs, long nOps, double seconds, Lat lat, int retries,
                              int errors, double loadAvg, String check, String note) throws IOException {
            double p50 = Double.NaN, p99 = Double.NaN, mean = Double.NaN;
            if (lat != null && lat.n > 0) {
                long[] s = Arrays.copyOf(lat.a, lat.n);
                Arrays.sort(s);
                p50 = pct(s, s.length, 50);
                p99 = pct(s, s.length, 99);
                double sum = 0;
                for (long x : s) sum += x;
                mean = sum / s.length / 1e6;
            }
            double opsS = seconds != 0 ? nOps / seconds : Double.NaN;
            if (check.startsWith("FAIL")) failed = true;
            String[] vals = {system, dataset, phase, op, String.valueOf(procs), String.valueOf(nOps),
                    f("%.3f", seconds), f("%.1f", opsS), f("%.3f", p50), f("%.3f", p99), f("%.3f", mean),
                    String.valueOf(retries), String.valueOf(errors), f("%.2f", loadAvg), check,
                    note.replace('\t', ' ').replace('\n', ' ')};
            try (PrintWriter w = new PrintWriter(new FileWriter(path, true))) {
                w.println(String.join("\t", vals));
            }
            System.err.println(String.format(Locale.ROOT, "%-12s %-12s %-24s p=%-2d n=%-8d %10s ops/s  p50 %8s ms  p99 %8s ms  %s",
                    system, phase, op, procs, nOps, f("%.1f", opsS), f("%.3f", p50), f("%.3f", p99), check));
        }
    }

    static String machine() {
        String cpu = "?", mem = "?";
        try {
            for (String l : Files.readAllLines(Paths.get("/proc/cpuinfo"))) {
                if (l.startsWith("model name")) {
                    cpu = l.split(":", 2)[1].trim();
                    break;
                }
            }
            for (String l : Files.readAllLines(Paths.get("/proc/meminfo"))) {
                if (l.startsWith("MemTotal")) {
                    mem = String.format(Locale.ROOT, "%.0f GiB", Long.parseLong(l.split("\\s+")[1]) / 1024.0 / 1024.0);
                }
            }
        } catch (Exception ignored) {
        }
        String host = "?";
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (Exception ignored) {
        }
        return host + " " + System.getProperty("os.name") + " " + System.getProperty("os.version") + "; " + cpu + "; "
                + Runtime.getRuntime().availableProcessors() + " cores; " + mem;
    }

    static String threadsNote(int t) {
        return DRIVER + ", " + t + (t == 1 ? " thread" : " threads");
    }

    // ------------------------------------------------------------ threads

    interface Worker<S, R> {
        S setup(int k) throws Exception;

        R run(int k, S state) throws Exception;
    }

    /** Runs `t` threads; each sets up (connects) first, then all start together. */
    static <S, R> List<R> runThreads(int t, Worker<S, R> w) throws Exception {
        return runThreads(t, w, new long[1]);
    }

    /** As runThreads(t, w), and goAt[0] = System.nanoTime() when the threads are let go after their setup. */
    @SuppressWarnings("unchecked")
    static <S, R> List<R> runThreads(int t, Worker<S, R> w, long[] goAt) throws Exception {
        CountDownLatch ready = new CountDownLatch(t), go = new CountDownLatch(1);
        Object[] results = new Object[t];
        Throwable[] errs = new Throwable[t];
        Thread[] ts = new Thread[t];
        for (int k = 0; k < t; k++) {
            final int kk = k;
            ts[k] = new Thread(() -> {
                S st = null;
                try {
                    st = w.setup(kk);
                } catch (Throwable e) {
                    errs[kk] = e;
                }
                ready.countDown();
                try {
                    go.await();
                    if (errs[kk] == null) results[kk] = w.run(kk, st);
                } catch (Throwable e) {
                    errs[kk] = e;
                }
            }, "aster-" + k);
            ts[k].start();
        }
        ready.await();
        goAt[0] = System.nanoTime();
        go.countDown();
        for (Thread th : ts) th.join();
        for (Throwable e : errs) {
            if (e != null) throw new RuntimeException("client thread failed: " + describe(e), e);
        }
        List<R> out = new ArrayList<>();
        for (Object r : results) out.add((R) r);
        return out;
    }

    static final class NoopResult {
        Lat lat = new Lat();
        double seconds;
    }

    static List<NoopResult> noops(Cluster c, int t, double warmup, double seconds) throws Exception {
        return runThreads(t, new Worker<Conn, NoopResult>() {
            public Conn setup(int k) {
                return new Conn(c);
            }

            public NoopResult run(int k, Conn conn) throws Exception {
                NoopResult r = new NoopResult();
                long tWarm = System.nanoTime() + (long) (warmup * 1e9), tEnd = tWarm + (long) (seconds * 1e9);
                long start = 0;
                while (true) {
                    long t0 = System.nanoTime();
                    if (t0 >= tEnd) break;
                    opNoop(conn.g);
                    if (t0 >= tWarm) {
                        if (start == 0) start = t0;
                        r.lat.add(System.nanoTime() - t0);
                    }
                }
                long stop = System.nanoTime();
                r.seconds = start != 0 ? (stop - start) / 1e9 : 0;
                conn.close();
                return r;
            }
        });
    }

    // ------------------------------------------------------------ latency

    interface ArgOp<T> {
        Object run(GraphTraversalSource g, T arg) throws Exception;
    }

    static <T> void one(Out out, GraphTraversalSource g, String op, ArgOp<T> fn, List<T> argsets,
                        BiPredicate<T, Object> ok, String note) throws IOException {
        double la = loadavg();
        Lat lat = new Lat();
        int bad = 0, errors = 0, retries = 0;
        String firstBad = "";
        long t = System.nanoTime();
        for (T args : argsets) {
            try {
                long t0 = System.nanoTime();
                Tried r = attempt(g, gg -> fn.run(gg, args));
                lat.add(System.nanoTime() - t0);
                retries += r.retries;
                if (!ok.test(args, r.result)) {
                    bad++;
                    if (firstBad.isEmpty()) {
                        String s = String.valueOf(r.result);
                        firstBad = "; first wrong: " + op + "(" + args + ") -> " + (s.length() > 300 ? s.substring(0, 300) : s);
                    }
                }
            } catch (Exception ex) {
                errors++;
                if (errors == 1) System.err.println(op + ": " + describe(ex));
            }
        }
        double secs = (System.nanoTime() - t) / 1e9;
        String chk = bad == 0 && errors == 0 ? "ok" : "FAIL " + bad + " wrong answers, " + errors + " errors";
        out.row("latency-java", op, 1, lat.n, secs, lat, retries, errors, la, chk, threadsNote(1) + "; " + note + firstBad);
    }

    static int cmdLatency(Args a) throws Exception {
        Ids m = readIds(a);
        Dataset ds = m.ds;
        Object[] ids = m.ids;
        Out out = new Out(a.out, a.system, m.dataset);
        Cluster c = cluster(a.url);
        try (Conn conn = new Conn(c)) {
            GraphTraversalSource g = conn.g;
            Random rnd = new Random(a.seed);
            int n = ds.n(), S = a.samples;
            long eStart = countE(g);
            boolean pristine = eStart == ds.m();
            // Warm-up: aster.py's (no-ops and get_neighbors), then the same
            // pairs for --warmup-seconds more: this client's JIT, not only
            // the server's (read-only: the store is not changed).
            for (int i = 0; i < Math.min(200, S); i++) {
                opNoop(g);
                opGetNeighbors(g, ids[rnd.nextInt(n)]);
            }
            Random wr = new Random(a.seed + 7);
            long tw = System.nanoTime() + (long) (a.warmupSeconds * 1e9);
            while (System.nanoTime() < tw) {
                opNoop(g);
                opGetNeighbors(g, ids[wr.nextInt(n)]);
            }

            List<Integer> none = new ArrayList<>(Collections.nCopies(S, 0));
            one(out, g, "noop", (gg, x) -> opNoop(gg), none, (x, r) -> r instanceof Number && ((Number) r).intValue() == 1,
                    "g.inject(1).next(): the client's floor");
            // vids far beyond the dataset's and beyond those aster.py's latency phase created
            int maxVid = Arrays.stream(ds.vids).max().orElse(0);
            int base = Math.max(maxVid + 1, 1 << 30);
            List<Integer> vs = new ArrayList<>();
            for (int i = 0; i < S; i++) vs.add(base + i);
            one(out, g, "add_vertex", AsterJava::opAddVertex, vs, (x, r) -> r != null,
                    "vid " + base + "+i, beyond the dataset's and the Python client's");
            List<Object[]> pairs = new ArrayList<>();
            for (int i = 0; i < S; i++) pairs.add(new Object[]{ids[rnd.nextInt(n)], ids[rnd.nextInt(n)]});
            List<PairArg> pa = new ArrayList<>();
            for (Object[] p : pairs) pa.add(new PairArg(p[0], p[1]));
            one(out, g, "add_edge", (gg, p) -> opAddEdge(gg, p.a, p.b), pa, (x, r) -> isOne(r), "uniform random ends");
            long eMid = countE(g);
            one(out, g, "delete_edge", (gg, p) -> opDeleteEdge(gg, p.a, p.b), pa, (x, r) -> isOne(r),
                    "deletes the edges add_edge made, same order: V(a).outE('e').where(inV().hasId(b)).limit(1).sideEffect(drop()).count()");
            long eEnd = countE(g);
            String chk = eMid == eStart + S && eEnd == eStart ? "ok"
                    : "FAIL E " + eStart + " -> " + eMid + " -> " + eEnd + ", want +" + S + " then back";
            out.row("check-java", "edge_count", 1, 0, 0.0, null, 0, 0, loadavg(), chk,
                    threadsNote(1) + "; E=" + eStart + " +" + S + " add_edge -" + S + " delete_edge");
            List<Integer> verts = new ArrayList<>();
            for (int i = 0; i < S; i++) verts.add(rnd.nextInt(n));
            Map<Object, List<Object>> want = new HashMap<>();
            String note;
            if (pristine) {
                Map<Integer, List<Integer>> adj = adjacencyOf(ds, verts);
                for (int v : verts) {
                    List<Object> l = new ArrayList<>();
                    for (int u : adj.get(v)) l.add(ids[u]);
                    want.put(ids[v], sortedIds(l));
                }
                note = "uniform vertex; answers checked against the file";
            } else {
                // The store is no longer the file's (the Python client's mixes
                // added edges): check against the server's own answer, read
                // before the timed requests (edges do not change in between).
                for (int v : verts) want.computeIfAbsent(ids[v], id -> sortedIds(opGetNeighbors(g, id)));
                note = "uniform vertex; E=" + eStart + ", not the file's " + ds.m()
                        + ": answers checked against the same server's answer read before timing";
            }
            List<Object> vids = new ArrayList<>();
            for (int v : verts) vids.add(ids[v]);
            one(out, g, "get_neighbors", (gg, id) -> opGetNeighbors(gg, id), vids,
                    (id, r) -> r instanceof List && sortedIds((List<?>) r).equals(want.get(id)), note);
            List<PairArg> up = new ArrayList<>();
            for (int i = 0; i < S; i++) up.add(new PairArg(ids[rnd.nextInt(n)], (double) i));
            one(out, g, "update_property", (gg, p) -> opUpdateProperty(gg, p.a, (Double) p.b), up, (x, r) -> isOne(r),
                    "V(a).property('score', x).count()");
            List<Integer> fv = new ArrayList<>();
            for (int i = 0; i < a.findSamples; i++) fv.add(rnd.nextInt(n));
            Map<Integer, Object> wantFind = new HashMap<>();
            List<Integer> fvids = new ArrayList<>();
            for (int v : fv) {
                wantFind.put(ds.vids[v], norm(ids[v]));
                fvids.add(ds.vids[v]);
            }
            one(out, g, "find_by_property", AsterJava::opFindByProperty, fvids,
                    (vid, r) -> r instanceof List && ((List<?>) r).size() == 1
                            && norm(((List<?>) r).get(0)).equals(wantFind.get(vid)),
                    "V().has('v','vid',n).id(), no index");
        }
        // The ceiling of the mixes: no-ops from T threads.
        for (int t : a.threads) {
            double la = loadavg();
            List<NoopResult> res = noops(c, t, a.warmupSeconds, a.ceilingSeconds);
            Lat lat = new Lat();
            double secs = 0;
            for (NoopResult r : res) {
                lat.addAll(r.lat);
                secs += r.seconds;
            }
            secs /= res.size();
            out.row("ceiling-java", "noop", t, lat.n, secs, lat, 0, 0, la, "ok",
                    threadsNote(t) + "; g.inject(1).next() from every thread: the most the client gets");
        }
        c.close();
        return out.failed ? 1 : 0;
    }

    static final class PairArg {
        final Object a, b;

        PairArg(Object a, Object b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public String toString() {
            return a + ", " + b;
        }
    }

    // ------------------------------------------------------------ mixes

    static final class MixResult {
        Lat getNeighbors = new Lat(), addEdge = new Lat();
        int errors, bad, retries;
        String firstError = "";
        int[] added = new int[64];
        int nAdded;
        long end; // System.nanoTime() when this thread finished its operations

        void added(int x, int y) {
            if (nAdded + 2 > added.length) added = Arrays.copyOf(added, 2 * added.length);
            added[nAdded++] = x;
            added[nAdded++] = y;
        }
    }

    /** Operations of each of `t` threads in a mix of `total`: total / t each, the remainder one more to the first. */
    static int[] mixCounts(int total, int t) {
        int[] c = new int[t];
        for (int k = 0; k < t; k++) c[k] = total / t + (k < total % t ? 1 : 0);
        return c;
    }

    /** One thread's operations in a mix: kinds[i] 1 = GetNeighbors of xs[i], 0 = AddEdge xs[i] -> ys[i]. */
    static final class Plan {
        byte[] kinds;
        int[] xs, ys;
        int adds;
    }

    /**
     * Thread k's operations in a mix, fixed before it runs (as aster.py's mix_plan, with java.util.Random's
     * numbers): exactly nOps * lookupPct / 100 GetNeighbors, the rest AddEdge, in an order shuffled by the
     * thread's own generator, vertices uniform over the n loaded ones. The seed depends only on (seed,
     * look-up share, thread index), so every system receives the same operations.
     */
    static Plan mixPlan(int seed, int lookupPct, int k, int nOps, int n) {
        Random rnd = new Random(((long) seed + lookupPct) * 1000L + k);
        int lookups = (int) ((long) nOps * lookupPct / 100);
        Plan p = new Plan();
        p.kinds = new byte[nOps];
        for (int i = 0; i < lookups; i++) p.kinds[i] = 1;
        for (int i = nOps - 1; i > 0; i--) { // Fisher-Yates
            int j = rnd.nextInt(i + 1);
            byte x = p.kinds[i];
            p.kinds[i] = p.kinds[j];
            p.kinds[j] = x;
        }
        p.xs = new int[nOps];
        p.ys = new int[nOps];
        for (int i = 0; i < nOps; i++) {
            p.xs[i] = rnd.nextInt(n);
            if (p.kinds[i] == 0) {
                p.ys[i] = rnd.nextInt(n);
                p.adds++;
            }
        }
        return p;
    }

    static int cmdMixes(Args a) throws Exception {
        Ids m = readIds(a);
        Dataset ds = m.ds;
        Object[] ids = m.ids;
        Out out = new Out(a.out, a.system, m.dataset);
        Cluster c = cluster(a.url);
        Conn conn = new Conn(c);
        GraphTraversalSource g = conn.g;
        long eFirst = countE(g);
        boolean pristine = eFirst == ds.m();
        int n = ds.n();
        // The adjacency lists to check at the end. On the file's graph: the
        // file plus what the mixes add (and the vertices they wrote to most).
        // Otherwise (after the Python client's mixes): the same server's
        // lists read now, plus what the mixes add.
        TreeSet<Integer> sample = adjacencySample(ds, new Random(a.seed), a.checkSample / 2);
        Map<Integer, List<Object>> before = new HashMap<>();
        if (!pristine) {
            for (int v : sample) before.put(v, new ArrayList<>(opGetNeighbors(g, ids[v])));
        }
        MixResult all = new MixResult();
        for (int t : a.threads) {
            int[] counts = mixCounts(a.mixOps, t);
            for (int share : a.lookups) {
                // What the mix will add, known before it runs: every system gets
                // the same operations, so every store grows by the same edges.
                Plan[] plans = new Plan[t];
                int wantAdds = 0;
                for (int k = 0; k < t; k++) {
                    plans[k] = mixPlan(a.seed, share, k, counts[k], n);
                    wantAdds += plans[k].adds;
                    for (int i = 0; i < counts[k]; i++) {
                        if (plans[k].kinds[i] == 0) all.added(plans[k].xs[i], plans[k].ys[i]);
                    }
                }
                long e0 = countE(g);
                double la = loadavg();
                long[] goAt = new long[1];
                List<MixResult> res = runThreads(t, new Worker<Conn, MixResult>() {
                    public Conn setup(int k) {
                        Conn cn = new Conn(c);
                        mixWarmup(cn, ids, a.seed * 1000L + 500 + k, a.warmupSeconds);
                        return cn;
                    }

                    public MixResult run(int k, Conn cn) throws Exception {
                        return mixWorker(cn, ids, plans[k]);
                    }
                }, goAt);
                long e1 = countE(g);
                int errors = 0, bad = 0, retries = 0;
                long end = goAt[0];
                String firstError = "";
                Lat gn = new Lat(), ae = new Lat(), allk = new Lat();
                for (MixResult r : res) {
                    errors += r.errors;
                    bad += r.bad;
                    retries += r.retries;
                    end = Math.max(end, r.end);
                    if (firstError.isEmpty()) firstError = r.firstError;
                    gn.addAll(r.getNeighbors);
                    ae.addAll(r.addEdge);
                }
                double secs = (end - goAt[0]) / 1e9;
                long done = (long) gn.n + ae.n;
                String chk = e1 - e0 == wantAdds && errors == 0 && bad == 0 && done == a.mixOps ? "ok"
                        : "FAIL E grew " + (e1 - e0) + ", want " + wantAdds + " (the mix's add_edge ops); " + done
                          + " of " + a.mixOps + " ops done, " + bad + " add_edge answers not 1, " + errors + " errors";
                String op = "mix" + share;
                String tn = threadsNote(t);
                out.row("mix-java", op + ":get_neighbors", t, gn.n, secs, gn, 0, 0, la, chk,
                        tn + "; " + share + "% look-ups; ops/s of this kind alone");
                out.row("mix-java", op + ":add_edge", t, ae.n, secs, ae, 0, 0, la, chk,
                        tn + "; " + share + "% look-ups; ops/s of this kind alone");
                allk.addAll(gn);
                allk.addAll(ae);
                out.row("mix-java", op, t, allk.n, secs, allk, retries, errors, la, chk,
                        tn + "; " + share + "% look-ups; " + a.mixOps + " ops fixed in advance (" + wantAdds
                        + " add_edge), " + a.warmupSeconds + " s read-only warm-up, E " + e0 + " -> " + e1
                        + (firstError.isEmpty() ? "" : "; first error: " + firstError));
            }
        }
        // The answers after the mixes.
        if (pristine) {
            Map<Integer, Integer> touched = new HashMap<>();
            for (int i = 0; i < all.nAdded; i += 2) touched.merge(all.added[i], 1, Integer::sum);
            touched.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue())
                    .limit(a.checkSample / 2).forEach(e -> sample.add(e.getKey()));
        }
        Map<Integer, List<Object>> want = new HashMap<>();
        if (pristine) {
            Map<Integer, List<Integer>> adj = adjacencyOf(ds, sample);
            for (int v : sample) {
                List<Object> l = new ArrayList<>();
                for (int u : adj.get(v)) l.add(ids[u]);
                want.put(v, l);
            }
        } else {
            for (int v : sample) want.put(v, before.get(v));
        }
        for (int i = 0; i < all.nAdded; i += 2) {
            List<Object> l = want.get(all.added[i]);
            if (l != null) l.add(ids[all.added[i + 1]]);
        }
        long t0 = System.nanoTime();
        int wrong = 0;
        String first = "";
        for (int v : sample) {
            List<Object> w = sortedIds(want.get(v));
            List<Object> got = sortedIds(opGetNeighbors(g, ids[v]));
            if (!got.equals(w)) {
                wrong++;
                if (first.isEmpty()) {
                    first = "; first: vertex #" + v + " (id " + ids[v] + ") has " + got.size()
                            + " out-neighbours, want " + w.size();
                }
            }
        }
        String chk = wrong == 0 ? "ok" : "FAIL " + wrong + " of " + sample.size() + " adjacency lists differ";
        out.row("check-java", "adjacency_after_mixes", 1, sample.size(), (System.nanoTime() - t0) / 1e9, null, 0, 0,
                loadavg(), chk, threadsNote(1) + "; " + (pristine ? "file" : "the server's lists before the Java mixes (E="
                        + eFirst + ", not the file's " + ds.m() + ")") + " + the " + all.nAdded / 2
                        + " edges the mixes added" + first);
        conn.close();
        c.close();
        return out.failed ? 1 : 0;
    }

    /**
     * A mix thread's warm-up, before the measured part: no-op + get_neighbors pairs for `seconds` (the
     * client's JIT and the server's caches). Read only, so every system's graph stays the same.
     */
    static void mixWarmup(Conn conn, Object[] ids, long seed, double seconds) {
        Random wr = new Random(seed);
        long tEnd = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < tEnd) {
            opNoop(conn.g);
            opGetNeighbors(conn.g, ids[wr.nextInt(ids.length)]);
        }
    }

    /** AddEdge / GetNeighbors: this thread's fixed operations (mixPlan), each timed. */
    static MixResult mixWorker(Conn conn, Object[] ids, Plan plan) throws Exception {
        GraphTraversalSource g = conn.g;
        MixResult r = new MixResult();
        for (int i = 0; i < plan.kinds.length; i++) {
            boolean lookup = plan.kinds[i] == 1;
            long t = System.nanoTime();
            try {
                if (lookup) {
                    Object id = ids[plan.xs[i]];
                    r.retries += attempt(g, gg -> opGetNeighbors(gg, id)).retries;
                } else {
                    Object x = ids[plan.xs[i]], y = ids[plan.ys[i]];
                    Tried tr = attempt(g, gg -> opAddEdge(gg, x, y));
                    r.retries += tr.retries;
                    if (!isOne(tr.result)) r.bad++;
                }
            } catch (Exception ex) {
                r.errors++;
                if (r.firstError.isEmpty()) r.firstError = describe(ex);
                continue;
            }
            (lookup ? r.getNeighbors : r.addEdge).add(System.nanoTime() - t);
        }
        r.end = System.nanoTime();
        conn.close();
        return r;
    }

    public static void main(String[] argv) throws Exception {
        Args a = parse(argv);
        int rc;
        try {
            rc = a.cmd.equals("latency") ? cmdLatency(a) : cmdMixes(a);
        } catch (Exception e) {
            System.err.println("AsterJava " + a.cmd + ": " + describe(e));
            e.printStackTrace();
            rc = 1;
        }
        System.exit(rc);
    }
}
