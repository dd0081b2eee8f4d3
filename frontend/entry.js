// The explorer's drawing libraries, bundled once into static/vendor/graph-bundle.js.
// Exposed as window.PegasusGraph so static/js/explorer.js (plain script, CSP 'self') uses them.
// Only synchronous ForceAtlas2 is bundled: its web-worker variant starts from a blob: URL,
// which the site's CSP (script-src 'self') forbids.
import Graph from "graphology";
import Sigma from "sigma";
import { EdgeLineProgram, EdgeRectangleProgram, NodeCircleProgram } from "sigma/rendering";
import forceAtlas2 from "graphology-layout-forceatlas2";
import { circular, random } from "graphology-layout";

window.PegasusGraph = Object.freeze({
  Graph,
  Sigma,
  forceAtlas2,
  layout: Object.freeze({ circular, random }),
  programs: Object.freeze({ EdgeLineProgram, EdgeRectangleProgram, NodeCircleProgram }),
  // Filled in by build.sh from the installed package.json files.
  versions: Object.freeze(__PEGASUS_VENDOR_VERSIONS__),
});
