package pinotsinktest;

/** Loaded with -javaagent only so that this jar joins the cluster JVM's class path (start.sh fixes -cp). */
public class Agent {
  public static void premain(String args) {
  }
}
