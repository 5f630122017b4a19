package stratagraph.spark;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.graphx.Edge;
import org.apache.spark.graphx.Graph;
import org.apache.spark.graphx.Graph$;
import org.apache.spark.graphx.lib.ConnectedComponents;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Spark GraphX's own connected-components algorithm
 * (org.apache.spark.graphx.lib.ConnectedComponents, the one GraphFrames runs
 * with algorithm "graphx") on DataFrames, for bench/spark/spark_side.py,
 * which calls it through py4j. GraphX ships inside pyspark; this class is
 * the only glue, since Python cannot build a GraphX graph directly.
 */
public final class GraphXWcc {
    private GraphXWcc() {}

    /**
     * vertices(id: long), arcs(src: long, dst: long); returns (id, comp):
     * comp is the smallest id of the vertex's weakly connected component.
     */
    public static Dataset<Row> run(Dataset<Row> vertices, Dataset<Row> arcs, int maxIterations) {
        SparkSession spark = vertices.sparkSession();
        ClassTag<Object> tag = ClassTag$.MODULE$.apply(Object.class);
        JavaRDD<Tuple2<Object, Object>> v = vertices.select("id").javaRDD()
                .map(r -> new Tuple2<Object, Object>(r.getLong(0), r.getLong(0)));
        JavaRDD<Edge<Object>> e = arcs.select("src", "dst").javaRDD()
                .map(r -> new Edge<Object>(r.getLong(0), r.getLong(1), 1));
        Graph<Object, Object> g = Graph$.MODULE$.apply(v.rdd(), e.rdd(), (Object) 0L,
                StorageLevel.MEMORY_ONLY(), StorageLevel.MEMORY_ONLY(), tag, tag);
        Graph<Object, Object> cc = ConnectedComponents.run(g, maxIterations, tag, tag);
        JavaRDD<Row> rows = cc.vertices().toJavaRDD()
                .map(t -> RowFactory.create(t._1(), t._2()));
        StructType schema = new StructType()
                .add("id", DataTypes.LongType, false)
                .add("comp", DataTypes.LongType, false);
        return spark.createDataFrame(rows, schema);
    }
}
