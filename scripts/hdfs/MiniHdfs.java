// A one-datanode HDFS (Hadoop's MiniDFSCluster) with WebHDFS on fixed
// 127.0.0.1 ports, for scripts/hdfs.sh. Run as a single-file program:
//   java -cp 'lib/*' MiniHdfs.java BASEDIR NN_RPC NN_HTTP DN_DATA DN_HTTP DN_IPC
// Permissions are off (any user.name may write anywhere). Prints
// "MiniHdfs ready: webhdfs=http://127.0.0.1:NN_HTTP" once the datanode is
// up, then runs until killed (a shutdown hook stops the cluster).
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

public class MiniHdfs {
    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: MiniHdfs BASEDIR NN_RPC NN_HTTP DN_DATA DN_HTTP DN_IPC");
            System.exit(2);
        }
        String base = args[0];
        int nnRpc = Integer.parseInt(args[1]);
        int nnHttp = Integer.parseInt(args[2]);
        Configuration conf = new Configuration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base);
        conf.setBoolean("dfs.permissions.enabled", false);
        conf.setBoolean("dfs.webhdfs.enabled", true);
        conf.set("dfs.namenode.http-address", "127.0.0.1:" + nnHttp);
        conf.set("dfs.datanode.address", "127.0.0.1:" + args[3]);
        conf.set("dfs.datanode.http.address", "127.0.0.1:" + args[4]);
        conf.set("dfs.datanode.ipc.address", "127.0.0.1:" + args[5]);
        // One datanode: never try to replace it in a write pipeline.
        conf.set("dfs.client.block.write.replace-datanode-on-failure.policy", "NEVER");
        conf.setInt("dfs.replication", 1);
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf)
                .nameNodePort(nnRpc)
                .nameNodeHttpPort(nnHttp)
                .numDataNodes(1)
                .format(true)
                .checkDataNodeAddrConfig(true)
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::shutdown));
        cluster.waitActive();
        System.out.println("MiniHdfs ready: webhdfs=http://127.0.0.1:" + nnHttp
                + " rpc=hdfs://127.0.0.1:" + nnRpc);
        System.out.flush();
        Thread.currentThread().join();
    }
}
