import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.commons.configuration2.BaseConfiguration;
import org.apache.tinkerpop.gremlin.language.grammar.GremlinAntlrToJava;
import org.apache.tinkerpop.gremlin.language.grammar.GremlinQueryParser;
import org.apache.tinkerpop.gremlin.process.traversal.Traversal;
import org.apache.tinkerpop.gremlin.process.traversal.dsl.graph.GraphTraversalSource;
import org.apache.tinkerpop.gremlin.structure.Edge;
import org.apache.tinkerpop.gremlin.structure.Element;
import org.apache.tinkerpop.gremlin.structure.Property;
import org.apache.tinkerpop.gremlin.structure.T;
import org.apache.tinkerpop.gremlin.structure.Vertex;
import org.apache.tinkerpop.gremlin.structure.VertexProperty;
import org.apache.tinkerpop.gremlin.structure.io.graphson.GraphSONMapper;
import org.apache.tinkerpop.gremlin.structure.io.graphson.GraphSONReader;
import org.apache.tinkerpop.gremlin.structure.io.graphson.GraphSONVersion;
import org.apache.tinkerpop.gremlin.tinkergraph.structure.TinkerGraph;

/**
 * The TinkerGraph side of the Gremlin benchmark (bench/gremlin/README.md).
 *
 * <pre>
 * java -Xmx16g -cp 'target/classes:target/lib/*' TinkerBench
 *     --dataset NAME (--graphson FILE | --csv DIR) --queries FILE
 *     [--runs N] [--warmup-seconds S] [--index KEY,...] [--out FILE]
 * </pre>
 *
 * Loads the graph into a TinkerGraph (ids as in the files, LONG id
 * managers so gremlin-lang's integer literals name them), creates the
 * vertex-property indexes of --index, then for each query (a line
 * {@code name<TAB>gremlin-lang text}) warms up (the query repeated until
 * --warmup-seconds have passed, at least once, at most 10,000 times),
 * then times --runs runs. A run is parsing the text with TinkerPop's
 * gremlin-language grammar ({@code GremlinQueryParser} +
 * {@code GremlinAntlrToJava}, the path Gremlin Server takes for
 * gremlin-lang) and iterating the traversal to a list. Rows (TSV):
 * {@code system dataset query median_s min_s results checksum sample}.
 *
 * <p>Checksum: every result rendered as text (vertex {@code v<id>}, edge
 * {@code e[<out>-<label>-><in>]}, integers in decimal, floating point
 * numbers with six decimals, strings as they are, lists and paths
 * {@code [a,b]} in order, maps {@code {k=v,...}} with entries sorted by
 * their text), the texts sorted by their UTF-8 bytes, joined by '\n',
 * hashed with 64-bit FNV-1a, printed as 16 hex digits. Order-insensitive,
 * so two engines that expand edges in different orders agree.
 * crates/stratagraph-bench/src/gremlin.rs computes the same.
 */
public final class TinkerBench {
    private TinkerBench() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
                throw new IllegalArgumentException("expected --key value pairs, got " + argv[i]);
            }
            a.put(argv[i].substring(2), argv[++i]);
        }
        String dataset = req(a, "dataset");
        int runs = Integer.parseInt(a.getOrDefault("runs", "3"));
        double warmup = Double.parseDouble(a.getOrDefault("warmup-seconds", "1"));
        List<String[]> queries = readQueries(Paths.get(req(a, "queries")));

        BaseConfiguration conf = new BaseConfiguration();
        conf.setProperty(TinkerGraph.GREMLIN_TINKERGRAPH_VERTEX_ID_MANAGER, "LONG");
        conf.setProperty(TinkerGraph.GREMLIN_TINKERGRAPH_EDGE_ID_MANAGER, "LONG");
        conf.setProperty(TinkerGraph.GREMLIN_TINKERGRAPH_VERTEX_PROPERTY_ID_MANAGER, "LONG");
        TinkerGraph graph = TinkerGraph.open(conf);

        long t0 = System.nanoTime();
        if (a.containsKey("graphson")) {
            GraphSONReader reader = GraphSONReader.build()
                    .mapper(GraphSONMapper.build().version(GraphSONVersion.V3_0).create())
                    .create();
            try (InputStream in = new FileInputStream(a.get("graphson"))) {
                reader.readGraph(in, graph);
            }
        } else if (a.containsKey("csv")) {
            loadCsv(graph, Paths.get(a.get("csv")));
        } else {
            throw new IllegalArgumentException("--graphson FILE or --csv DIR");
        }
        double loadSeconds = (System.nanoTime() - t0) / 1e9;
        if (a.containsKey("index")) {
            for (String key : a.get("index").split(",")) {
                graph.createIndex(key, Vertex.class);
            }
        }
        GraphTraversalSource g = graph.traversal();
        long nv = g.V().count().next();
        long ne = g.E().count().next();
        Runtime rt = Runtime.getRuntime();
        System.gc();
        long used = rt.totalMemory() - rt.freeMemory();

        List<String> lines = new ArrayList<>();
        lines.add("# system: tinkergraph " + TinkerGraph.class.getPackage().getImplementationVersion()
                + " (org.apache.tinkerpop:tinkergraph-gremlin), gremlin-language parser");
        lines.add("# jvm: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                + ", max heap " + rt.maxMemory() / (1 << 20) + " MiB");
        lines.add("# tinkergraph: LONG id managers; index on vertex keys: " + a.getOrDefault("index", "none"));
        lines.add(String.format(Locale.ROOT, "# loaded: %d vertices, %d edges in %.1f s; heap after load %d MiB",
                nv, ne, loadSeconds, used / (1 << 20)));
        lines.add(String.format(Locale.ROOT, "# runs: %d after %.1f s of warm-up per query", runs, warmup));
        lines.add("system\tdataset\tquery\tmedian_s\tmin_s\tresults\tchecksum\tsample");
        for (String l : lines) {
            System.out.println(l);
        }
        lines.add(row(dataset, "_load", new double[] {loadSeconds}, nv + ne,
                "V=" + nv + ";E=" + ne, "-"));
        System.out.println(lines.get(lines.size() - 1));

        for (String[] q : queries) {
            String name = q[0];
            String text = q[1];
            List<Object> result = null;
            long start = System.nanoTime();
            for (int i = 0; i < 10_000; i++) {
                result = run(g, text);
                if ((System.nanoTime() - start) / 1e9 >= warmup) {
                    break;
                }
            }
            double[] times = new double[runs];
            for (int r = 0; r < runs; r++) {
                long t = System.nanoTime();
                result = run(g, text);
                times[r] = (System.nanoTime() - t) / 1e9;
            }
            List<String> rendered = new ArrayList<>(result.size());
            for (Object o : result) {
                rendered.add(render(o));
            }
            String line = row(dataset, name, times, result.size(), checksum(rendered), sample(rendered));
            System.out.println(line);
            lines.add(line);
        }
        if (a.containsKey("out")) {
            Files.write(Paths.get(a.get("out")), lines, StandardCharsets.UTF_8);
        }
        System.exit(0);
    }

    private static String req(Map<String, String> a, String key) {
        String v = a.get(key);
        if (v == null) {
            throw new IllegalArgumentException("--" + key + " is required");
        }
        return v;
    }

    /** Parses and runs one gremlin-lang query: its results as a list. */
    @SuppressWarnings("unchecked")
    static List<Object> run(GraphTraversalSource g, String text) {
        Object parsed = GremlinQueryParser.parse(text, new GremlinAntlrToJava(g));
        if (parsed instanceof Traversal) {
            return ((Traversal<?, Object>) parsed).toList();
        }
        if (parsed instanceof List) {
            return (List<Object>) parsed;
        }
        return Collections.singletonList(parsed);
    }

    static List<String[]> readQueries(Path path) throws IOException {
        List<String[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int tab = line.indexOf('\t');
            if (tab < 0) {
                throw new IllegalArgumentException(path + ": expected name<TAB>query: " + line);
            }
            out.add(new String[] {line.substring(0, tab).trim(), line.substring(tab + 1).trim()});
        }
        return out;
    }

    // ---- CSV (the typed-header files of bench/props/gen_props.py) ----

    /**
     * Loads {@code v-<label>.csv} files (columns {@code :ID} and
     * {@code name:type}), then {@code e-<label>-<src>-<dst>.csv} files
     * (columns {@code :START_ID}, {@code :END_ID}, {@code name:type}), in
     * name order. Types: string (default), int, long, double, float,
     * boolean, short, byte; an empty field sets no property. Fields are
     * split on commas; a quoted field is refused.
     */
    static void loadCsv(TinkerGraph graph, Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".csv")).sorted()
                    .collect(Collectors.toList());
        }
        Map<Long, Vertex> byId = new HashMap<>();
        for (Path f : files) {
            String fn = f.getFileName().toString();
            if (!fn.startsWith("v-")) {
                continue;
            }
            String label = fn.substring(2, fn.length() - 4);
            readCsv(f, (cols, types, fields) -> {
                List<Object> kv = new ArrayList<>();
                kv.add(T.label);
                kv.add(label);
                Long id = null;
                for (int i = 0; i < cols.length; i++) {
                    if (cols[i].equals(":ID")) {
                        id = Long.parseLong(fields[i]);
                        kv.add(T.id);
                        kv.add(id);
                    } else if (!fields[i].isEmpty()) {
                        kv.add(cols[i]);
                        kv.add(typed(types[i], fields[i]));
                    }
                }
                byId.put(id, graph.addVertex(kv.toArray()));
            });
        }
        for (Path f : files) {
            String fn = f.getFileName().toString();
            if (!fn.startsWith("e-")) {
                continue;
            }
            String label = fn.substring(2, fn.length() - 4).split("-")[0];
            readCsv(f, (cols, types, fields) -> {
                List<Object> kv = new ArrayList<>();
                Vertex src = null;
                Vertex dst = null;
                for (int i = 0; i < cols.length; i++) {
                    if (cols[i].equals(":START_ID")) {
                        src = vertex(byId, fields[i], f);
                    } else if (cols[i].equals(":END_ID")) {
                        dst = vertex(byId, fields[i], f);
                    } else if (!fields[i].isEmpty()) {
                        kv.add(cols[i]);
                        kv.add(typed(types[i], fields[i]));
                    }
                }
                src.addEdge(label, dst, kv.toArray());
            });
        }
    }

    private static Vertex vertex(Map<Long, Vertex> byId, String field, Path f) {
        Vertex v = byId.get(Long.parseLong(field));
        if (v == null) {
            throw new IllegalArgumentException(f + ": no vertex " + field);
        }
        return v;
    }

    interface RowSink {
        void row(String[] cols, String[] types, String[] fields);
    }

    static void readCsv(Path f, RowSink sink) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
            String header = r.readLine();
            String[] cols = header.split(",", -1);
            String[] types = new String[cols.length];
            for (int i = 0; i < cols.length; i++) {
                int colon = cols[i].lastIndexOf(':');
                if (colon > 0) {
                    types[i] = cols[i].substring(colon + 1);
                    cols[i] = cols[i].substring(0, colon);
                } else {
                    types[i] = "string";
                }
            }
            String line;
            long n = 1;
            while ((line = r.readLine()) != null) {
                n++;
                if (line.indexOf('"') >= 0) {
                    throw new IllegalArgumentException(f + ":" + n + ": quoted fields are not read here");
                }
                String[] fields = line.split(",", -1);
                if (fields.length != cols.length) {
                    throw new IllegalArgumentException(f + ":" + n + ": " + fields.length + " fields, header has "
                            + cols.length);
                }
                sink.row(cols, types, fields);
            }
        }
    }

    static Object typed(String type, String s) {
        switch (type) {
            case "string":
                return s;
            case "int":
                return Integer.parseInt(s);
            case "long":
                return Long.parseLong(s);
            case "short":
                return Short.parseShort(s);
            case "byte":
                return Byte.parseByte(s);
            case "double":
                return Double.parseDouble(s);
            case "float":
                return Float.parseFloat(s);
            case "boolean":
                return Boolean.parseBoolean(s);
            default:
                throw new IllegalArgumentException("column type " + type + " is not read here");
        }
    }

    // ---- results ----

    static String render(Object o) {
        if (o == null) {
            return "null";
        }
        if (o instanceof Vertex) {
            return "v" + ((Vertex) o).id();
        }
        if (o instanceof Edge) {
            Edge e = (Edge) o;
            return "e[" + e.outVertex().id() + "-" + e.label() + "->" + e.inVertex().id() + "]";
        }
        if (o instanceof VertexProperty) {
            VertexProperty<?> p = (VertexProperty<?>) o;
            return "vp[" + p.key() + "->" + render(p.value()) + "]";
        }
        if (o instanceof Property) {
            Property<?> p = (Property<?>) o;
            return "p[" + p.key() + "->" + render(p.value()) + "]";
        }
        if (o instanceof org.apache.tinkerpop.gremlin.process.traversal.Path) {
            return "[" + ((org.apache.tinkerpop.gremlin.process.traversal.Path) o).objects().stream()
                    .map(TinkerBench::render).collect(Collectors.joining(",")) + "]";
        }
        if (o instanceof Map) {
            List<String> entries = new ArrayList<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                entries.add(render(e.getKey()) + "=" + render(e.getValue()));
            }
            entries.sort(TinkerBench::byUtf8);
            return "{" + String.join(",", entries) + "}";
        }
        if (o instanceof Iterable) {
            List<String> items = new ArrayList<>();
            for (Iterator<?> it = ((Iterable<?>) o).iterator(); it.hasNext();) {
                items.add(render(it.next()));
            }
            return "[" + String.join(",", items) + "]";
        }
        if (o instanceof Double || o instanceof Float || o instanceof BigDecimal) {
            double d = ((Number) o).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return Double.toString(d);
            }
            return String.format(Locale.ROOT, "%.6f", d);
        }
        if (o instanceof Number || o instanceof Boolean || o instanceof String) {
            return o.toString();
        }
        if (o instanceof T) {
            return "T." + ((T) o).getAccessor();
        }
        if (o instanceof Element) {
            return "element" + ((Element) o).id();
        }
        return o.toString();
    }

    static int byUtf8(String x, String y) {
        return Arrays.compareUnsigned(x.getBytes(StandardCharsets.UTF_8), y.getBytes(StandardCharsets.UTF_8));
    }

    static String checksum(List<String> rendered) {
        List<String> sorted = new ArrayList<>(rendered);
        sorted.sort(TinkerBench::byUtf8);
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < sorted.size(); i++) {
            if (i > 0) {
                h = (h ^ '\n') * 0x100000001b3L;
            }
            for (byte b : sorted.get(i).getBytes(StandardCharsets.UTF_8)) {
                h = (h ^ (b & 0xff)) * 0x100000001b3L;
            }
        }
        return String.format("%016x", h);
    }

    /** The first result text in sorted order, cut to 60 characters and kept to one TSV field. */
    static String sample(List<String> rendered) {
        if (rendered.isEmpty()) {
            return "-";
        }
        String s = Collections.min(rendered, TinkerBench::byUtf8).replace('\t', ' ').replace('\n', ' ');
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }

    static String sig(double v) {
        if (v == 0) {
            return "0";
        }
        return new BigDecimal(v).round(new MathContext(4)).stripTrailingZeros().toPlainString();
    }

    static String row(String dataset, String query, double[] times, long results, String checksum, String sample) {
        double[] s = times.clone();
        Arrays.sort(s);
        int n = s.length;
        double median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        return String.join("\t", "tinkergraph", dataset, query, sig(median), sig(s[0]), Long.toString(results),
                checksum, sample);
    }
}
