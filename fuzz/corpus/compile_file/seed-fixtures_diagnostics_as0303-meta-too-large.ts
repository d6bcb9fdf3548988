// expect: AS0303
import { defineAgentComponentContract } from "@agent-surface/core";

export const customersTableContract = defineAgentComponentContract({
  type: "crm.customersTable",
  description: "The customers table.",
  meta: {
    columns: [
    { key: "id", label: "Id", width: 160, sortable: true, filterable: true, hint: "Column id of the customer table, shown by default on wide screens" },
    { key: "name", label: "Name", width: 160, sortable: true, filterable: true, hint: "Column name of the customer table, shown by default on wide screens" },
    { key: "email", label: "Email", width: 160, sortable: true, filterable: true, hint: "Column email of the customer table, shown by default on wide screens" },
    { key: "phone", label: "Phone", width: 160, sortable: true, filterable: true, hint: "Column phone of the customer table, shown by default on wide screens" },
    { key: "company", label: "Company", width: 160, sortable: true, filterable: true, hint: "Column company of the customer table, shown by default on wide screens" },
    { key: "country", label: "Country", width: 160, sortable: true, filterable: true, hint: "Column country of the customer table, shown by default on wide screens" },
    { key: "city", label: "City", width: 160, sortable: true, filterable: true, hint: "Column city of the customer table, shown by default on wide screens" },
    { key: "plan", label: "Plan", width: 160, sortable: true, filterable: true, hint: "Column plan of the customer table, shown by default on wide screens" },
    { key: "mrr", label: "Mrr", width: 160, sortable: true, filterable: true, hint: "Column mrr of the customer table, shown by default on wide screens" },
    { key: "seats", label: "Seats", width: 160, sortable: true, filterable: true, hint: "Column seats of the customer table, shown by default on wide screens" },
    { key: "createdAt", label: "CreatedAt", width: 160, sortable: true, filterable: true, hint: "Column createdAt of the customer table, shown by default on wide screens" },
    { key: "lastLogin", label: "LastLogin", width: 160, sortable: true, filterable: true, hint: "Column lastLogin of the customer table, shown by default on wide screens" },
    { key: "owner", label: "Owner", width: 160, sortable: true, filterable: true, hint: "Column owner of the customer table, shown by default on wide screens" },
    { key: "status", label: "Status", width: 160, sortable: true, filterable: true, hint: "Column status of the customer table, shown by default on wide screens" },
    { key: "tags", label: "Tags", width: 160, sortable: true, filterable: true, hint: "Column tags of the customer table, shown by default on wide screens" },
    { key: "notes", label: "Notes", width: 160, sortable: true, filterable: true, hint: "Column notes of the customer table, shown by default on wide screens" },
    { key: "health", label: "Health", width: 160, sortable: true, filterable: true, hint: "Column health of the customer table, shown by default on wide screens" },
    { key: "nps", label: "Nps", width: 160, sortable: true, filterable: true, hint: "Column nps of the customer table, shown by default on wide screens" },
    { key: "renewal", label: "Renewal", width: 160, sortable: true, filterable: true, hint: "Column renewal of the customer table, shown by default on wide screens" },
    { key: "industry", label: "Industry", width: 160, sortable: true, filterable: true, hint: "Column industry of the customer table, shown by default on wide screens" },
    ],
  },
});
