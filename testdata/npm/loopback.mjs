// Preloaded (node --import) into the Node servers the HTTP real-server
// tests start: a server that listens on a port alone (all interfaces) is
// made to listen on 127.0.0.1, so that no test opens a port to the network.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  if ((typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port))) && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
