// expect: clean
import {
  actionContract as action,
  defineAgentComponentContract as defineComponent,
  emptyObjectSchema as noInput,
  fromJsonSchema as schema,
  observationContract as observation,
} from "@agent-surface/core";

export const tabsContract = defineComponent({
  type: "settings.tabs",
  description: "The tab strip of the settings page.",
  observations: {
    activeTab: observation({
      description: "The tab currently shown.",
      output: schema({ type: "object", properties: { tab: { type: "string" } }, required: ["tab"] }),
    }),
  },
  actions: {
    nextTab: action({ description: "Show the next tab.", input: noInput, effect: "navigation" }),
  },
});
